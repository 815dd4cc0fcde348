package dev.fairing4j.deployer.job.internal;

import dev.fairing4j.core.TrainingJob;
import java.util.Optional;

/**
 * Finds a job of a cluster by name, for a deployer's {@code attach(name)}: the part of a
 * cluster's job directory that the job room needs, so that the room does not reach up into the
 * monitor room, which lists and tops jobs.
 */
public interface JobFinder {
  /** The namespace a client starts in, e.g. the kubeconfig context's. */
  String defaultNamespace();

  /** A handle on the job {@code name}, whatever its kind; empty when there is none. */
  Optional<TrainingJob> attach(String namespace, String name);

  /** A cluster that can find its jobs. */
  interface Provider {
    /** Its finder; cheap, reads nothing until used. */
    JobFinder jobFinder();
  }
}
