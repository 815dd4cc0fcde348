package dev.fairing4j.deployer.local.internal;

import dev.fairing4j.core.Endpoint;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.job.internal.RenderedJob;
import dev.fairing4j.deployer.job.internal.ServedModel;
import dev.fairing4j.deployer.local.internal.plan.JobPlan;
import dev.fairing4j.deployer.local.internal.plan.LocalKind;
import dev.fairing4j.deployer.local.internal.plan.LocalRuntimes;
import dev.fairing4j.deployer.local.internal.plan.ManifestReader;
import dev.fairing4j.deployer.local.internal.runtime.GpuProbe;
import dev.fairing4j.deployer.local.internal.runtime.HostFacts;
import dev.fairing4j.deployer.local.internal.state.JobRecord;
import dev.fairing4j.deployer.local.internal.state.StateStore;
import dev.fairing4j.deployer.monitor.JobDetails;
import dev.fairing4j.deployer.monitor.JobGpus;
import dev.fairing4j.deployer.monitor.JobList;
import dev.fairing4j.deployer.monitor.JobSummary;
import dev.fairing4j.deployer.monitor.NodeGpus;
import dev.fairing4j.deployer.monitor.TopJobs;
import dev.fairing4j.deployer.monitor.TopNodes;
import dev.fairing4j.deployer.monitor.internal.JobDirectory;
import dev.fairing4j.deployer.trainer.TrainingRuntime;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The jobs of a cluster on this machine (local or podman) for
 * {@link dev.fairing4j.deployer.TrainingClient}: read from the state directory, so a client in
 * another JVM (a restarted notebook kernel) sees the same jobs. This machine is the only node;
 * its GPUs are the ones both clusters schedule against.
 */
public final class LocalJobDirectory implements JobDirectory {
  private final RecordedJobs cluster;
  private final Path stateDir;

  /** The jobs {@code recorded} in {@code stateDir}. */
  public LocalJobDirectory(RecordedJobs recorded, Path stateDir) {
    this.cluster = recorded;
    this.stateDir = stateDir;
  }

  @Override
  public String defaultNamespace() {
    return "default";
  }

  @Override
  public JobList list(String namespace) {
    List<JobSummary> jobs = new ArrayList<>();
    for (TrainingJob job : cluster.list(namespace)) {
      if (!serves(job)) {
        jobs.add(summary(job.status(), namespace));
      }
    }
    return new JobList(jobs, Optional.of(namespace), Instant.now());
  }

  @Override
  public JobList listAll() {
    List<JobSummary> jobs = new ArrayList<>();
    for (TrainingJob job : cluster.listAll()) {
      if (!serves(job)) {
        jobs.add(summary(job.status(), job.namespace()));
      }
    }
    jobs.sort(java.util.Comparator.comparing(JobSummary::namespace)
        .thenComparing(JobSummary::name));
    return new JobList(jobs, Optional.empty(), Instant.now());
  }

  @Override
  public Optional<TrainingJob> attach(String namespace, String name) {
    return cluster.attach(namespace, name);
  }

  /** The serving Deployments run here, by name: they are endpoints, not training jobs. */
  @Override
  public List<Endpoint> endpoints(String namespace) {
    return cluster.list(namespace).stream().filter(LocalJobDirectory::serves)
        .map(LocalJobDirectory::endpoint).sorted(java.util.Comparator.comparing(Endpoint::name))
        .toList();
  }

  @Override
  public Optional<Endpoint> endpoint(String namespace, String name) {
    return cluster.attach(namespace, name).filter(LocalJobDirectory::serves)
        .map(LocalJobDirectory::endpoint);
  }

  private static boolean serves(TrainingJob job) {
    return job.kind().equals(LocalKind.DEPLOYMENT.kind());
  }

  // The model the Deployment's server answers to, from the manifest the job was started with.
  private static Endpoint endpoint(TrainingJob job) {
    LocalTrainingJob local = (LocalTrainingJob) job;
    String model = local.store().read(local.jobDir()).map(JobRecord::manifest)
        .flatMap(objects -> objects.stream().filter(o -> serves(o)).findFirst())
        .map(ServedModel::of).orElse(job.name());
    return LocalEndpoint.of(job, model);
  }

  private static boolean serves(Map<String, Object> object) {
    return LocalKind.DEPLOYMENT.kind().equals(object.get("kind"));
  }

  @Override
  public Optional<JobDetails> get(String namespace, String name) {
    return cluster.attach(namespace, name).map(job -> {
      JobStatus status = job.status();
      return new JobDetails(summary(status, namespace), status, Instant.now());
    });
  }

  @Override
  public TopJobs topJobs(String namespace) {
    List<JobGpus> jobs = new ArrayList<>();
    StateStore store = new StateStore(stateDir);
    for (TrainingJob job : cluster.list(namespace)) {
      JobStatus status = job.status();
      Optional<JobPlan> plan = store.read(store.jobDir(namespace, job.name()))
          .map(record -> ManifestReader.read(new RenderedJob(record.kind(), record.name(),
              record.namespace(), record.manifest())));
      int requested = plan.map(LocalJobDirectory::requestedGpus).orElse(0);
      int allocated = plan.map(p -> allocatedGpus(p, status)).orElse(0);
      jobs.add(new JobGpus(job.name(), status.phase(), job.kind(), requested, allocated));
    }
    return new TopJobs(namespace, jobs);
  }

  @Override
  public TopNodes topNodes() {
    int allocated = 0;
    for (TrainingJob job : cluster.listAll()) {
      allocated += topJobs(job.namespace()).jobs().stream()
          .filter(j -> j.name().equals(job.name()))
          .mapToInt(JobGpus::allocated).sum();
    }
    return new TopNodes(List.of(new NodeGpus(HostFacts.hostName(), GpuProbe.count(), allocated)));
  }

  /**
   * The runtimes this machine stands in for, as a cluster with Trainer's shipped runtimes
   * lists them: cluster-wide, one node, run with this machine's Python (no image). It has no
   * namespaced TrainingRuntimes.
   */
  @Override
  public List<TrainingRuntime> runtimes(String namespace) {
    return LocalRuntimes.KNOWN.stream().map(r -> new TrainingRuntime(r.name(),
        TrainingRuntime.CLUSTER_WIDE, Optional.empty(), Optional.of(r.framework()), 1,
        Optional.empty(), 0)).toList();
  }

  private static JobSummary summary(JobStatus status, String namespace) {
    Optional<String> node = status.pods().stream()
        .filter(pod -> !pod.phase().equals("Pending"))
        .findFirst()
        .flatMap(PodInfo::node);
    return new JobSummary(status.name(), namespace, status.phase(), status.kind(),
        status.startTime(), node);
  }

  private static int requestedGpus(JobPlan plan) {
    return plan.groups().stream()
        .mapToInt(group -> (int) (group.replicas() * group.pod().container().gpus()))
        .sum();
  }

  // A replica holds its GPUs while it runs; on this machine that is the only allocation there is.
  private static int allocatedGpus(JobPlan plan, JobStatus status) {
    if (status.phase() == JobPhase.SUCCEEDED || status.phase() == JobPhase.FAILED) {
      return 0;
    }
    int allocated = 0;
    for (PodInfo pod : status.pods()) {
      if (pod.phase().equals("Running")) {
        allocated += plan.group(pod.replicaType())
            .map(group -> (int) group.pod().container().gpus()).orElse(0);
      }
    }
    return allocated;
  }
}
