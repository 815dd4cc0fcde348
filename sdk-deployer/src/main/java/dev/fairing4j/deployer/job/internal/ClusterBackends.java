package dev.fairing4j.deployer.job.internal;

import dev.fairing4j.core.internal.JvmWide;
import dev.fairing4j.deployer.job.Cluster;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The one way from a public {@link Cluster} to the {@link ClusterBackend} behind it, for the
 * deployers, storage helpers and {@link dev.fairing4j.deployer.TrainingClient}.
 *
 * <p>Why a registry: the public cluster classes keep their backend in a private field, so that
 * submission, storage and job-directory plumbing never appear in their public signatures; they
 * live in other packages than this one, and without a named module Java cannot seal
 * {@link Cluster} across packages or grant friend access. So each cluster class hands this
 * registry a reader of its private field when the class initializes (the JDK's "shared secrets"
 * pattern); any instance passed to {@link #of} has initialized its class, so its reader is here.
 */
public final class ClusterBackends {
  @JvmWide(why = "the friend accessor of the public cluster classes: registered "
      + "by their class initializers, as the JDK's SharedSecrets are",
      bound = "one entry per SDK cluster class (3), keyed by class")
  private static final Map<Class<?>, Function<Cluster, ClusterBackend>> READERS =
      new ConcurrentHashMap<>();

  private ClusterBackends() {}

  /**
   * Called once from the static initializer of a cluster class; the first registration for a
   * class wins, so a later call cannot redirect an SDK cluster's submissions.
   */
  public static <C extends Cluster> void register(Class<C> type,
      Function<? super C, ? extends ClusterBackend> reader) {
    READERS.putIfAbsent(type, cluster -> reader.apply(type.cast(cluster)));
  }

  /**
   * The backend of {@code cluster}; empty for a {@link Cluster} implemented outside the SDK,
   * which nothing can submit to. A cluster that is itself a backend (the SDK's own test doubles)
   * is its own.
   */
  public static Optional<ClusterBackend> of(Cluster cluster) {
    if (cluster instanceof ClusterBackend backend) {
      return Optional.of(backend);
    }
    return Optional.ofNullable(READERS.get(cluster.getClass())).map(r -> r.apply(cluster));
  }
}
