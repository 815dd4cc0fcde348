package dev.fairing4j.deployer.job.internal;

import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.internal.JvmWide;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * A job handle that can create objects owned by its job (an ownerReference to it), so the
 * cluster deletes them with the job: the seam through which helpers such as
 * {@link dev.fairing4j.deployer.monitor.TensorBoard} add companions to a running job.
 *
 * <p>The public job classes do not implement it, so that it stays off their signatures; each
 * registers a view of itself here when its class initializes, the way clusters register with
 * {@link ClusterBackends} (which says why).
 */
public interface OwnedObjects {
  /** Called once from the static initializer of a job class; the first registration wins. */
  static <J extends TrainingJob> void register(Class<J> type,
      Function<? super J, ? extends OwnedObjects> view) {
    Views.VIEWS.putIfAbsent(type, job -> view.apply(type.cast(job)));
  }

  /** {@code job} as a creator of owned objects; empty for a job that cannot own objects. */
  static Optional<OwnedObjects> of(TrainingJob job) {
    return Optional.ofNullable(Views.VIEWS.get(job.getClass())).map(v -> v.apply(job));
  }

  /**
   * Creates {@code objects} in the job's namespace with an ownerReference to the job; an object
   * that already exists is kept as it is (re-running a notebook cell is harmless). Returns the
   * objects as stored.
   */
  List<Map<String, Object>> createOwned(List<Map<String, Object>> objects);

  /** Holds the registrations: interface fields are public, this class is not. */
  final class Views {
    @JvmWide(why = "the friend accessor of the public job classes: registered by "
        + "their class initializers",
        bound = "one entry per SDK job class, keyed by class")
    private static final Map<Class<?>, Function<TrainingJob, OwnedObjects>> VIEWS =
        new ConcurrentHashMap<>();

    private Views() {}
  }
}
