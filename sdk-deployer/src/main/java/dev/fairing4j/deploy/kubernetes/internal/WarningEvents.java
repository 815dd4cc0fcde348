package dev.fairing4j.deploy.kubernetes.internal;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The Warning events that explain a stuck or failed job: those on the job itself (the operator
 * re-posts pod problems there: ImagePullBackOff, Unschedulable, ExitedWithCode) and those on its
 * pods (FailedScheduling, BackOff). Read with one list request of the namespace's events (they
 * expire after an hour, so the list stays short).
 */
public final class WarningEvents {
  /** At most this many events are reported, the newest. */
  public static final int LIMIT = 20;

  private WarningEvents() {}

  /**
   * The Warning events whose involved object is one of {@code names}, oldest first, formatted as
   * {@code Reason kind/name: message (xN)}.
   */
  public static List<String> about(KubeRest rest, String namespace, Set<String> names) {
    return about(rest, namespace, names, LIMIT);
  }

  /**
   * As {@link #about(KubeRest, String, Set)}, keeping only the newest {@code limit}: a status
   * shows fewer than a failure report, which is read once.
   */
  public static List<String> about(KubeRest rest, String namespace, Set<String> names,
      int limit) {
    // Filtered here rather than by field selectors: a selector matches one involved object, not
    // the job and all its pods, and test doubles such as fabric8's mock ignore them.
    List<Map<String, Object>> events = rest.list(ResourceRef.EVENTS, Optional.of(namespace),
        Optional.empty(), Optional.empty());
    List<Map<String, Object>> matching = new ArrayList<>();
    for (Map<String, Object> event : events) {
      boolean warning = "Warning".equals(JsonTree.string(event, "type").orElse("Warning"));
      String involved = JsonTree.string(event, "involvedObject", "name").orElse("");
      if (warning && names.contains(involved)) {
        matching.add(event);
      }
    }
    matching.sort(Comparator.comparing(WarningEvents::time));
    Set<String> lines = new LinkedHashSet<>();
    for (Map<String, Object> event : matching) {
      int count = JsonTree.integer(event, "count").orElse(1);
      lines.add(JsonTree.string(event, "reason").orElse("Warning") + " "
          + JsonTree.string(event, "involvedObject", "kind").orElse("object")
              .toLowerCase(java.util.Locale.ROOT) + "/"
          + JsonTree.string(event, "involvedObject", "name").orElse("?") + ": "
          + JsonTree.string(event, "message").orElse("").strip()
          + (count > 1 ? " (x" + count + ")" : ""));
    }
    List<String> all = new ArrayList<>(lines);
    return all.subList(Math.max(0, all.size() - limit), all.size());
  }

  private static Instant time(Map<String, Object> event) {
    return JsonTree.instant(event, "lastTimestamp")
        .or(() -> JsonTree.instant(event, "eventTime"))
        .or(() -> JsonTree.instant(event, "firstTimestamp"))
        .or(() -> JsonTree.instant(event, "metadata", "creationTimestamp"))
        .orElse(Instant.EPOCH);
  }
}
