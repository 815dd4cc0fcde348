package dev.fairing4j.deployer.kubernetes.internal.jobs;

import dev.fairing4j.core.JobEvent;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeRest;
import dev.fairing4j.deployer.kubernetes.internal.transport.ResourceRef;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
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
   * The Warning events about the job {@code job} and its {@code pods} (objects as read), oldest
   * first, formatted as {@code Reason kind/name: message (xN)}.
   */
  public static List<String> about(KubeRest rest, String namespace, Map<String, Object> job,
      List<Map<String, Object>> pods, int limit) {
    return about(rest, namespace, job, List.of(), pods, limit);
  }

  /**
   * As {@link #about(KubeRest, String, Map, List, int)}, with the events of {@code related}
   * objects too (a TrainJob's JobSet and Jobs, which have the job's name or one like it).
   */
  public static List<String> about(KubeRest rest, String namespace, Map<String, Object> job,
      List<Map<String, Object>> related, List<Map<String, Object>> pods, int limit) {
    List<Map<String, Object>> all = new ArrayList<>(related);
    all.addAll(pods);
    return about(rest, namespace, involved(job, all), limit);
  }

  /**
   * The objects whose events count, name to uids ({@code ""} when unknown): the job and its pods
   * (and what is between them). A TrainJob and its JobSet share a name, so a name may have
   * several.
   */
  public static Map<String, Set<String>> involved(Map<String, Object> job,
      List<Map<String, Object>> pods) {
    Map<String, Set<String>> involved = new LinkedHashMap<>();
    for (Map<String, Object> object : concat(job, pods)) {
      JsonTree.text(object, "metadata", "name").ifPresent(name -> involved.computeIfAbsent(name,
          n -> new LinkedHashSet<>()).add(JsonTree.string(object, "metadata", "uid")
          .orElse("")));
    }
    return involved;
  }

  /**
   * The Warning events whose involved object is one of {@code involved} (name to uid), oldest
   * first, keeping only the newest {@code limit}: a status shows fewer than a failure report,
   * which is read once. Repeats of the same text are shown once.
   */
  public static List<String> about(KubeRest rest, String namespace,
      Map<String, Set<String>> involved, int limit) {
    Set<String> lines = new LinkedHashSet<>();
    for (JobEvent event : all(rest, namespace, involved)) {
      if (event.isWarning()) {
        lines.add(event.reason() + " " + event.object() + ": " + event.message()
            + (event.count() > 1 ? " (x" + event.count() + ")" : ""));
      }
    }
    List<String> all = new ArrayList<>(lines);
    return all.subList(Math.max(0, all.size() - limit), all.size());
  }

  /**
   * Every event, Normal and Warning, whose involved object is one of {@code involved} (name to
   * uid), oldest first. Events outlive their object by an hour, and a job submitted again under
   * its name (a rerun, {@code replaceExisting()}) gets pods of the same names: an event whose
   * involved object carries a uid counts only when it is the uid of the object now, so the
   * predecessor's events are not shown as this job's. An empty uid on either side matches by
   * name alone. An event without a type counts as a Warning.
   */
  public static List<JobEvent> all(KubeRest rest, String namespace,
      Map<String, Set<String>> involved) {
    // Filtered here rather than by field selectors: a selector matches one involved object, not
    // the job and all its pods, and test doubles such as fabric8's mock ignore them.
    List<Map<String, Object>> events = rest.list(ResourceRef.EVENTS, Optional.of(namespace),
        Optional.empty(), Optional.empty());
    List<Map<String, Object>> matching = new ArrayList<>();
    for (Map<String, Object> event : events) {
      String name = JsonTree.string(event, "involvedObject", "name").orElse("");
      String uid = JsonTree.string(event, "involvedObject", "uid").orElse("");
      Set<String> current = involved.get(name);
      if (current != null && (uid.isEmpty() || current.contains("") || current.contains(uid))) {
        matching.add(event);
      }
    }
    matching.sort(Comparator.comparing(WarningEvents::time));
    List<JobEvent> typed = new ArrayList<>();
    for (Map<String, Object> event : matching) {
      typed.add(new JobEvent(time(event), JsonTree.string(event, "type").orElse("Warning"),
          JsonTree.string(event, "reason").orElse("Warning"),
          JsonTree.string(event, "involvedObject", "kind").orElse("object")
              .toLowerCase(java.util.Locale.ROOT) + "/"
              + JsonTree.string(event, "involvedObject", "name").orElse("?"),
          JsonTree.string(event, "message").orElse("").strip(),
          JsonTree.integer(event, "count").orElse(1)));
    }
    return typed;
  }

  private static List<Map<String, Object>> concat(Map<String, Object> first,
      List<Map<String, Object>> rest) {
    List<Map<String, Object>> all = new ArrayList<>();
    all.add(first);
    all.addAll(rest);
    return all;
  }

  private static Instant time(Map<String, Object> event) {
    return JsonTree.instant(event, "lastTimestamp")
        .or(() -> JsonTree.instant(event, "eventTime"))
        .or(() -> JsonTree.instant(event, "firstTimestamp"))
        .or(() -> JsonTree.instant(event, "metadata", "creationTimestamp"))
        .orElse(Instant.EPOCH);
  }
}
