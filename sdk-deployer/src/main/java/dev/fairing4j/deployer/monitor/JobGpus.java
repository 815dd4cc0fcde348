package dev.fairing4j.deployer.monitor;

import dev.fairing4j.core.JobPhase;
import java.util.Objects;

/**
 * The GPUs of one job: requested by its pods ({@code nvidia.com/gpu} and {@code amd.com/gpu}
 * limits) and allocated (those of pods scheduled to a node and not finished).
 *
 * @param name the job name
 * @param status its phase
 * @param trainer its kind
 * @param requested GPUs its pods ask for
 * @param allocated GPUs held now by its scheduled, unfinished pods
 */
public record JobGpus(String name, JobPhase status, String trainer, int requested,
    int allocated) {
  /** Checks the parts. */
  public JobGpus {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(trainer, "trainer");
  }
}
