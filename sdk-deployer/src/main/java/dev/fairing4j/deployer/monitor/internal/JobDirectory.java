package dev.fairing4j.deployer.monitor.internal;

import dev.fairing4j.core.Endpoint;
import dev.fairing4j.deployer.job.internal.JobFinder;
import dev.fairing4j.deployer.monitor.JobDetails;
import dev.fairing4j.deployer.monitor.JobList;
import dev.fairing4j.deployer.monitor.TopJobs;
import dev.fairing4j.deployer.monitor.TopNodes;
import dev.fairing4j.deployer.trainer.TrainingRuntime;
import java.util.List;
import java.util.Optional;

/**
 * The jobs a cluster knows, for {@link dev.fairing4j.deployer.TrainingClient}: the SPI each cluster
 * kind (Kubernetes, local) implements so the client's verbs work the same on all of them. One
 * directory is shared by every namespace view of a client, so they share one connection.
 */
public interface JobDirectory extends JobFinder {
  /** The training jobs of {@code namespace}. */
  JobList list(String namespace);

  /** The training jobs of every namespace. */
  JobList listAll();

  /** The job and its instances; empty when there is none. */
  Optional<JobDetails> get(String namespace, String name);

  /** GPUs requested and allocated per job of {@code namespace}. */
  TopJobs topJobs(String namespace);

  /** GPUs total and allocated per node. */
  TopNodes topNodes();

  /**
   * The endpoints serving models in {@code namespace} (serving Deployments, InferenceServices),
   * by name; reads no endpoint's status.
   */
  List<Endpoint> endpoints(String namespace);

  /** A handle on the endpoint {@code name}; empty when there is none. */
  Optional<Endpoint> endpoint(String namespace, String name);

  /**
   * The Trainer runtimes TrainJobs of {@code namespace} can run on: the ClusterTrainingRuntimes,
   * then the namespace's TrainingRuntimes, each by name; none where Trainer v2 is not installed.
   */
  List<TrainingRuntime> runtimes(String namespace);

  /** A cluster that has a job directory. */
  interface Provider extends JobFinder.Provider {
    /** Its directory; cheap, reads nothing until used. */
    JobDirectory jobDirectory();

    @Override
    default JobFinder jobFinder() {
      return jobDirectory();
    }
  }
}
