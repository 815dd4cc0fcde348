package dev.fairing4j.deployer.storage;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.job.Cluster;
import dev.fairing4j.deployer.job.JobOptions;
import dev.fairing4j.deployer.job.internal.ClusterBackend;
import dev.fairing4j.deployer.job.internal.ClusterBackends;
import dev.fairing4j.deployer.storage.internal.StorageBackend;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Volumes and claims on one cluster and namespace, created idempotently:
 * {@code Volumes.on(cluster).inNamespace("kubeflow").ensure(volume, claim)}. An immutable value;
 * nothing is contacted until {@link #ensure}.
 */
public final class ClusterStorage {
  private final Cluster cluster;
  private final Optional<String> namespace;

  ClusterStorage(Cluster cluster, Optional<String> namespace) {
    this.cluster = Objects.requireNonNull(cluster, "cluster");
    this.namespace = namespace;
  }

  /** Claims go into {@code newNamespace} (volumes are cluster-wide). */
  public ClusterStorage inNamespace(String newNamespace) {
    return new ClusterStorage(cluster, Optional.of(Validators.dns1123Label("namespace",
        newNamespace)));
  }

  /**
   * The namespace claims go into: the one set here, else the cluster's (a kubeconfig context's),
   * else {@code default}.
   */
  public String namespace() {
    return namespace.or(() -> ClusterBackends.of(cluster).flatMap(ClusterBackend::jobNamespace))
        .orElse(JobOptions.DEFAULT_NAMESPACE);
  }

  /**
   * Makes each object exist as given, volumes first (so a claim can bind at once): an absent one
   * is created; an equal one is left alone, no request changes it; a claim asking for more
   * storage than it has is grown when it can be (bound, of a StorageClass; the class must allow
   * volume expansion). Fails on the first object that exists with a field that cannot change,
   * naming the field, both values and the fix; objects before it stay ensured.
   *
   * @return what happened to each object, volumes first
   * @throws InvalidInputException when nothing is given or the cluster cannot hold storage,
   *     before any request
   * @throws StorageConflictException when an existing object differs in an immutable field, or
   *     a claim should grow but is not bound or has no StorageClass
   * @throws dev.fairing4j.deployer.kubernetes.KubernetesApiException when the API server refuses,
   *     e.g. RBAC (a PersistentVolume needs a ClusterRole)
   */
  public List<Ensured> ensure(StorageObject... objects) {
    Objects.requireNonNull(objects, "objects");
    if (objects.length == 0) {
      throw InvalidInputException.of("ensure(..)", "no volume or claim given",
          "pass the volumes and claims to create, e.g. ensure(volume, claim)");
    }
    Arrays.stream(objects).forEach(o -> Objects.requireNonNull(o, "storage object"));
    if (!(ClusterBackends.of(cluster).orElse(null) instanceof StorageBackend backend)) {
      throw InvalidInputException.of("cluster", cluster.describe() + " cannot hold"
          + " PersistentVolumes", "use Clusters.kubernetes()");
    }
    String target = namespace();
    List<StorageObject> ordered = new ArrayList<>(Arrays.asList(objects));
    ordered.sort(Comparator.comparing(o -> o instanceof VolumeClaim));
    List<Ensured> results = new ArrayList<>();
    for (StorageObject object : ordered) {
      results.add(backend.ensureStorage(object.manifest(), target));
    }
    return List.copyOf(results);
  }

  /** E.g. {@code storage(kubernetes(current context), namespace=team)}. */
  @Override
  public String toString() {
    return "storage(" + cluster.describe() + namespace.map(ns -> ", namespace=" + ns).orElse("")
        + ")";
  }
}
