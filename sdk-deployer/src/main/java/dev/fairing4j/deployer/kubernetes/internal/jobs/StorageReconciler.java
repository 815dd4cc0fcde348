package dev.fairing4j.deployer.kubernetes.internal.jobs;

import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.job.internal.Quantities;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException.Problem;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeRest;
import dev.fairing4j.deployer.kubernetes.internal.transport.ResourceRef;
import dev.fairing4j.deployer.storage.Ensured;
import dev.fairing4j.deployer.storage.StorageConflictException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a PersistentVolume or PersistentVolumeClaim exist as wanted with as few requests as
 * possible: one read, then a create when it is absent, nothing when it is equal, a merge patch of
 * {@code spec.resources.requests.storage} when a bound claim of a StorageClass should grow (the
 * API server grows no other claim). Only the fields fairing4j sets are compared, by meaning
 * (quantities by value, access modes as a set), because the API server fills in defaults
 * ({@code volumeMode}, {@code volumeName}, a default StorageClass) that are no difference. Any
 * other difference is a {@link StorageConflictException}: those fields are immutable (or, for a
 * volume, changing them under a bound claim would lie about its storage).
 */
public final class StorageReconciler {
  private static final Logger LOG = LoggerFactory.getLogger(StorageReconciler.class);
  private static final String VOLUME = "PersistentVolume";
  private static final String CLAIM = "PersistentVolumeClaim";

  private final KubeRest rest;

  /** Requests through {@code rest}. */
  public StorageReconciler(KubeRest rest) {
    this.rest = Objects.requireNonNull(rest, "rest");
  }

  /** Ensures {@code wanted}; a claim goes into {@code namespace}. */
  public Ensured ensure(Map<String, Object> wanted, String namespace) {
    String kind = JsonTree.text(wanted, "kind").orElseThrow(
        () -> new IllegalArgumentException("a storage manifest has no kind"));
    if (!kind.equals(VOLUME) && !kind.equals(CLAIM)) {
      throw new IllegalArgumentException("not a storage kind: " + kind);
    }
    String name = JsonTree.text(wanted, "metadata", "name").orElseThrow();
    ResourceRef resource = ResourceRef.of("v1", kind);
    Optional<String> ns = resource.namespaced() ? Optional.of(namespace) : Optional.empty();
    Map<String, Object> body = JsonTree.mutableCopy(wanted);
    ns.ifPresent(n -> JsonTree.map(body, "metadata").put("namespace", n));

    Optional<Map<String, Object>> existing = rest.find(resource, ns, name);
    if (existing.isEmpty()) {
      try {
        rest.create(resource, ns, body);
        LOG.info("Created {} {}", kind, describe(ns, name));
        return new Ensured(kind, name, ns, Ensured.Action.CREATED);
      } catch (KubernetesApiException e) {
        if (e.problem() != Problem.ALREADY_EXISTS) {
          throw e;
        }
        // Created by someone else between the read and the create: judge that one.
        existing = Optional.of(rest.find(resource, ns, name).orElseThrow(() -> e));
      }
    }
    Ensured.Action action = kind.equals(VOLUME)
        ? compareVolume(body, existing.get(), name)
        : compareClaim(body, existing.get(), ns, name);
    if (action == Ensured.Action.EXPANDED) {
      String size = JsonTree.text(body, "spec", "resources", "requests", "storage").orElseThrow();
      rest.mergePatch(resource, ns, name, Map.of("spec", Map.of("resources",
          Map.of("requests", Map.of("storage", size)))));
      LOG.info("Raised the storage request of {} {} to {}", kind, describe(ns, name), size);
    } else {
      LOG.debug("{} {} exists as wanted; left alone", kind, describe(ns, name));
    }
    return new Ensured(kind, name, ns, action);
  }

  private static Ensured.Action compareVolume(Map<String, Object> wanted,
      Map<String, Object> existing, String name) {
    String subject = VOLUME + " " + name;
    String recreate = "a PersistentVolume's source, capacity and access modes are not changed in"
        + " place by fairing4j: delete it ('kubectl delete pv " + name + "'; a hostPath volume's"
        + " files stay on the node, but a bound claim must be deleted first) and ensure again,"
        + " or give the new volume another name";
    same(subject, "spec.hostPath.path", text(existing, "spec", "hostPath", "path"),
        text(wanted, "spec", "hostPath", "path"), recreate);
    String has = raw(existing, "spec", "capacity", "storage");
    String wants = raw(wanted, "spec", "capacity", "storage");
    if (Quantities.compare(has, wants) != 0) {
      throw StorageConflictException.of(subject, "spec.capacity.storage", has, wants, recreate);
    }
    same(subject, "spec.accessModes", modes(existing), modes(wanted), recreate);
    same(subject, "spec.storageClassName", quoted(JsonTree.string(existing, "spec",
        "storageClassName").orElse("")), quoted(JsonTree.string(wanted, "spec",
        "storageClassName").orElse("")), recreate);
    Map<String, String> labels = labels(existing, "metadata", "labels");
    Map<String, String> wantedLabels = labels(wanted, "metadata", "labels");
    wantedLabels.remove(dev.fairing4j.deployer.job.internal.Metadata.MANAGED_BY);
    if (!labels.entrySet().containsAll(wantedLabels.entrySet())) {
      throw StorageConflictException.of(subject, "metadata.labels", labels.toString(),
          wantedLabels + " (at least)",
          "claims select the volume by these labels: add them with 'kubectl label pv " + name
              + " " + String.join(" ", wantedLabels.entrySet().stream()
                  .map(e -> e.getKey() + "=" + e.getValue()).toList())
              + "', or give the new volume another name");
    }
    // The volume controller's doing, which no CRUD store shows: a Retain volume whose claim was
    // deleted stays Released and binds no claim again, so the claim ensured next (and every
    // job that mounts it) would stay Pending without a word.
    if ("Released".equals(JsonTree.string(existing, "status", "phase").orElse(""))) {
      String claim = JsonTree.string(existing, "spec", "claimRef", "namespace").map(n -> n + "/")
          .orElse("") + JsonTree.string(existing, "spec", "claimRef", "name").orElse("?");
      throw StorageConflictException.of(subject, "status.phase",
          "Released (its claim " + claim + " was deleted)", "Available or Bound",
          "a released volume binds no new claim: delete it ('kubectl delete pv " + name + "';"
              + " a hostPath volume's files stay on the node) and ensure again, or free it for a"
              + " new claim, keeping its data: kubectl patch pv " + name + " --type json -p"
              + " '[{\"op\":\"remove\",\"path\":\"/spec/claimRef\"}]'");
    }
    return Ensured.Action.UNCHANGED;
  }

  private static Ensured.Action compareClaim(Map<String, Object> wanted,
      Map<String, Object> existing, Optional<String> ns, String name) {
    String subject = CLAIM + " " + describe(ns, name);
    String recreate = "a claim's spec cannot change except to grow: delete it ('kubectl delete"
        + " pvc " + name + ns.map(n -> " -n " + n).orElse("") + "'; with a Delete reclaim policy"
        + " its data goes too) and ensure again, or give the new claim another name";
    same(subject, "spec.accessModes", modes(existing), modes(wanted), recreate);
    same(subject, "spec.selector", labels(existing, "spec", "selector", "matchLabels").toString()
            + (JsonTree.maps(existing, "spec", "selector", "matchExpressions").isEmpty() ? ""
                : " with matchExpressions"),
        labels(wanted, "spec", "selector", "matchLabels").toString(), recreate);
    Optional<String> wantedClass = JsonTree.string(wanted, "spec", "storageClassName");
    // Unset means "the cluster's default", which the server has already filled in: no difference.
    if (wantedClass.isPresent()) {
      same(subject, "spec.storageClassName", quoted(JsonTree.string(existing, "spec",
          "storageClassName").orElse("")), quoted(wantedClass.get()), recreate);
    }
    String has = raw(existing, "spec", "resources", "requests", "storage");
    String wants = raw(wanted, "spec", "resources", "requests", "storage");
    int order = Quantities.compare(has, wants);
    if (order > 0) {
      throw StorageConflictException.of(subject, "spec.resources.requests.storage", has, wants,
          "a claim can grow but never shrink: ask for at least " + has + ", or delete it"
              + " ('kubectl delete pvc " + name + ns.map(n -> " -n " + n).orElse("")
              + "') and ensure again, or give the new claim another name");
    }
    if (order == 0) {
      return Ensured.Action.UNCHANGED;
    }
    // The API server refuses to grow a claim that is not bound (422: spec is immutable) or has no
    // StorageClass (403 from the PersistentVolumeClaimResize admission plugin): say so instead.
    String keep = "; or keep the size: ask for at most " + has + "; or delete it ('kubectl delete"
        + " pvc " + name + ns.map(n -> " -n " + n).orElse("") + "') and ensure again, or give the"
        + " new claim another name";
    String claimClass = JsonTree.string(existing, "spec", "storageClassName").orElse("");
    if (claimClass.isEmpty()) {
      throw StorageConflictException.of(subject, "spec.resources.requests.storage", has, wants,
          "a claim without a StorageClass (bound to a statically created volume, such as a"
              + " hostPath one) cannot grow: only claims of a StorageClass with"
              + " 'allowVolumeExpansion: true' can" + keep);
    }
    String phase = JsonTree.string(existing, "status", "phase").orElse("Pending");
    if (!phase.equals("Bound")) {
      throw StorageConflictException.of(subject, "spec.resources.requests.storage", has, wants,
          "the claim is " + phase + ", not Bound: a claim can grow only once it is bound; wait"
              + " until 'kubectl get pvc " + name + ns.map(n -> " -n " + n).orElse("")
              + "' shows Bound and ensure again" + keep);
    }
    return Ensured.Action.EXPANDED;
  }

  private static void same(String subject, String field, String existing, String wanted,
      String hint) {
    if (!existing.equals(wanted)) {
      throw StorageConflictException.of(subject, field, existing, wanted, hint);
    }
  }

  private static String text(Map<String, Object> object, String... path) {
    return JsonTree.text(object, path).map(StorageReconciler::quoted).orElse("(none)");
  }

  private static String raw(Map<String, Object> object, String... path) {
    return JsonTree.text(object, path).orElse("(none)");
  }

  private static String quoted(String value) {
    return "'" + value + "'";
  }

  private static String modes(Map<String, Object> object) {
    TreeSet<String> modes = new TreeSet<>();
    JsonTree.at(object, "spec", "accessModes").filter(List.class::isInstance)
        .ifPresent(list -> ((List<?>) list).forEach(m -> modes.add(String.valueOf(m))));
    return modes.toString();
  }

  private static Map<String, String> labels(Map<String, Object> object, String... path) {
    Map<String, String> labels = new TreeMap<>();
    JsonTree.map(object, path).forEach((k, v) -> labels.put(k, String.valueOf(v)));
    return labels;
  }

  private static String describe(Optional<String> ns, String name) {
    return ns.map(n -> n + "/").orElse("") + name;
  }
}
