package dev.fairing4j.deployer.job;

import java.util.Objects;

/**
 * Changes one pod template of a job before it is submitted: adds resources, volumes, env,
 * scheduling constraints and so on. {@link dev.fairing4j.deployer.Mutators} has the common ones;
 * write your own as a
 * lambda over {@link PodTemplate}.
 *
 * <p>A mutator must be idempotent (applying it twice gives the same template as applying it once)
 * and must find the training container by name ({@link PodTemplate#container()}), never by
 * position, since a mutator may add sidecars or init containers.
 */
@FunctionalInterface
public interface PodMutator {
  /** Changes {@code template} in place. */
  void apply(PodTemplate template);

  /** This mutator, then {@code next}. */
  default PodMutator andThen(PodMutator next) {
    Objects.requireNonNull(next, "next");
    PodMutator first = this;
    return template -> {
      first.apply(template);
      next.apply(template);
    };
  }
}
