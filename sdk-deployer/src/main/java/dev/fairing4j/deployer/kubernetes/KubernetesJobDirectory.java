package dev.fairing4j.deployer.kubernetes;

import dev.fairing4j.core.Endpoint;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.job.internal.ServedModel;
import dev.fairing4j.deployer.job.internal.kinds.TrainingKinds;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobKinds;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobReader;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobRef;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobWatchHub;
import dev.fairing4j.deployer.kubernetes.internal.jobs.PodDiagnosis;
import dev.fairing4j.deployer.kubernetes.internal.jobs.TrainerRuntimes;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeRest;
import dev.fairing4j.deployer.kubernetes.internal.transport.ResourceRef;
import dev.fairing4j.deployer.kubernetes.internal.transport.Timings;
import dev.fairing4j.deployer.monitor.JobDetails;
import dev.fairing4j.deployer.monitor.JobGpus;
import dev.fairing4j.deployer.monitor.JobList;
import dev.fairing4j.deployer.monitor.JobSummary;
import dev.fairing4j.deployer.monitor.NodeGpus;
import dev.fairing4j.deployer.monitor.TopJobs;
import dev.fairing4j.deployer.monitor.TopNodes;
import dev.fairing4j.deployer.monitor.internal.JobDirectory;
import dev.fairing4j.deployer.trainer.TrainingRuntime;
import dev.fairing4j.deployer.trainer.internal.TrainJobs;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The training jobs of a Kubernetes cluster for {@link dev.fairing4j.deployer.TrainingClient}:
 * the training operator's kinds (PyTorchJobs, TFJobs, XGBoostJobs), Kubeflow Trainer v2 TrainJobs
 * and their runtimes, and the batch Jobs the SDK created (labelled
 * {@code app.kubernetes.io/managed-by=fairing4j}; a TrainJob's own Jobs are its, not listed
 * apart), their pods, and GPU use. A kind whose CRD is not installed is simply absent.
 * Each call reads the pods of a namespace once, not per job.
 */
final class KubernetesJobDirectory implements JobDirectory {
  private static final List<ResourceRef> KUBEFLOW = java.util.stream.Stream.concat(
      TrainingKinds.all().stream().map(k -> ResourceRef.of(k.apiVersion(), k.kind())),
      java.util.stream.Stream.of(ResourceRef.of(TrainJobs.API_VERSION, TrainJobs.KIND))).toList();
  /** The kinds docs/rbac.yaml granted in 0.1.0. */
  private static final java.util.Set<String> RBAC_0_1_0 = java.util.Set.of("PyTorchJob", "TFJob",
      TrainJobs.KIND, JobKinds.BATCH_JOB, JobKinds.DEPLOYMENT, JobKinds.INFERENCE_SERVICE);
  private static final ResourceRef BATCH = ResourceRef.of("batch/v1", JobKinds.BATCH_JOB);
  private static final ResourceRef NODES = ResourceRef.of("v1", "Node");
  private static final ResourceRef DEPLOYMENTS = ResourceRef.of("apps/v1", JobKinds.DEPLOYMENT);
  private static final ResourceRef INFERENCE_SERVICES = ResourceRef.of(
      "serving.kserve.io/v1beta1", JobKinds.INFERENCE_SERVICE);
  private static final String SERVING_SELECTOR = ServedModel.ROLE_LABEL + "="
      + ServedModel.ROLE;
  private static final String MANAGED_BY = "app.kubernetes.io/managed-by";
  private static final List<String> GPU_RESOURCES = List.of("nvidia.com/gpu", "amd.com/gpu");

  private final Supplier<String> defaultNamespace;
  private final String cluster;
  private final Supplier<KubeRest> rest;
  private final Supplier<JobWatchHub> watches;
  private final Timings timings;

  KubernetesJobDirectory(Supplier<String> defaultNamespace, String cluster,
      Supplier<KubeRest> rest, Supplier<JobWatchHub> watches, Timings timings) {
    this.defaultNamespace = defaultNamespace;
    this.cluster = cluster;
    this.rest = rest;
    this.watches = watches;
    this.timings = timings;
  }

  /** A job object with the resource it was read from. */
  private record Found(ResourceRef resource, Map<String, Object> object) {
    String name() {
      return JsonTree.string(object, "metadata", "name").orElse("");
    }

    JobRef ref(String namespace) {
      return new JobRef(resource, namespace, name());
    }
  }

  @Override
  public String defaultNamespace() {
    return defaultNamespace.get();
  }

  @Override
  public JobList list(String namespace) {
    List<Map<String, Object>> pods = pods(namespace);
    return new JobList(jobs(namespace).stream().map(j -> summary(namespace, j, pods)).toList(),
        Optional.of(namespace), Instant.now());
  }

  @Override
  public JobList listAll() {
    KubeRest client = rest.get();
    List<Found> jobs = new ArrayList<>();
    for (ResourceRef kind : KUBEFLOW) {
      listAllQuietly(client, kind, Optional.empty()).forEach(o -> jobs.add(new Found(kind, o)));
    }
    listAllQuietly(client, BATCH, Optional.of(MANAGED_BY + "=fairing4j")).stream()
        .filter(KubernetesJobDirectory::ownJob).forEach(o -> jobs.add(new Found(BATCH, o)));
    List<Map<String, Object>> pods = client.listAllNamespaces(ResourceRef.PODS, Optional.empty());
    List<JobSummary> rows = new ArrayList<>();
    for (Found job : jobs) {
      String namespace = JsonTree.string(job.object(), "metadata", "namespace").orElse("");
      rows.add(summary(namespace, job, pods.stream().filter(p -> namespace.equals(
          JsonTree.string(p, "metadata", "namespace").orElse(null))).toList()));
    }
    rows.sort(Comparator.comparing(JobSummary::namespace).thenComparing(JobSummary::name)
        .thenComparing(JobSummary::trainer));
    return new JobList(rows, Optional.empty(), Instant.now());
  }

  private static List<Map<String, Object>> listAllQuietly(KubeRest client, ResourceRef kind,
      Optional<String> selector) {
    try {
      return client.listAllNamespaces(kind, selector);
    } catch (KubernetesApiException e) {
      if (absent(e, kind)) {
        return List.of(); // the kind's CRD is not installed: no such jobs
      }
      throw e;
    }
  }

  @Override
  public Optional<TrainingJob> attach(String namespace, String name) {
    return find(namespace, name).map(f -> new KubernetesTrainingJob(rest, watches,
        f.ref(namespace), timings, ProgressListener.NONE));
  }

  @Override
  public Optional<JobDetails> get(String namespace, String name) {
    return find(namespace, name).map(found -> {
      JobReader reader = new JobReader(rest.get(), found.ref(namespace));
      JobStatus status = reader.describe(found.object());
      return new JobDetails(summary(namespace, found, reader.podObjects()), status,
          Instant.now());
    });
  }

  @Override
  public TopJobs topJobs(String namespace) {
    List<Map<String, Object>> pods = pods(namespace);
    List<JobGpus> rows = new ArrayList<>();
    for (Found job : jobs(namespace)) {
      List<Map<String, Object>> own = podsOf(job, pods);
      int requested = own.stream().mapToInt(KubernetesJobDirectory::gpus).sum();
      int allocated = own.stream().filter(KubernetesJobDirectory::holdsResources)
          .mapToInt(KubernetesJobDirectory::gpus).sum();
      rows.add(new JobGpus(job.name(), phase(namespace, job), job.resource().kind(), requested,
          allocated));
    }
    return new TopJobs(namespace, rows);
  }

  @Override
  public TopNodes topNodes() {
    KubeRest client = rest.get();
    Map<String, Integer> held = new HashMap<>();
    for (Map<String, Object> pod : client.listAllNamespaces(ResourceRef.PODS, Optional.empty())) {
      if (holdsResources(pod)) {
        held.merge(JsonTree.string(pod, "spec", "nodeName").orElse(""), gpus(pod), Integer::sum);
      }
    }
    List<NodeGpus> rows = client.list(NODES, Optional.empty(), Optional.empty(), Optional.empty())
        .stream().map(node -> {
          String name = JsonTree.string(node, "metadata", "name").orElse("");
          int total = GPU_RESOURCES.stream().mapToInt(r -> count(JsonTree.at(node, "status",
              "allocatable", r))).sum();
          return new NodeGpus(name, total, held.getOrDefault(name, 0));
        }).sorted(Comparator.comparing(NodeGpus::node)).toList();
    return new TopNodes(rows);
  }

  @Override
  public List<TrainingRuntime> runtimes(String namespace) {
    return TrainerRuntimes.list(rest.get(), namespace);
  }

  /**
   * The job called {@code name}: the operator's kinds first (PyTorchJob, TFJob, XGBoostJob),
   * then TrainJob, then an SDK batch Job.
   */
  private Optional<Found> find(String namespace, String name) {
    KubeRest client = rest.get();
    for (ResourceRef kind : KUBEFLOW) {
      Optional<Map<String, Object>> object = findQuietly(client, kind, namespace, name);
      if (object.isPresent()) {
        return Optional.of(new Found(kind, object.get()));
      }
    }
    return findQuietly(client, BATCH, namespace, name)
        .filter(o -> "fairing4j".equals(JsonTree.string(o, "metadata", "labels", MANAGED_BY)
            .orElse("")))
        .filter(KubernetesJobDirectory::ownJob)
        .map(o -> new Found(BATCH, o));
  }

  /**
   * Whether a batch Job is a job of its own, not one of a TrainJob's JobSet (which may carry the
   * TrainJob's labels, the SDK's among them, on Trainer v2.0).
   */
  private static boolean ownJob(Map<String, Object> job) {
    return JsonTree.text(job, "metadata", "labels", TrainJobs.JOBSET_NAME_LABEL).isEmpty();
  }

  /** The serving Deployments fairing4j made and the InferenceServices, by name. */
  @Override
  public List<Endpoint> endpoints(String namespace) {
    KubeRest client = rest.get();
    List<Map<String, Object>> objects = new ArrayList<>(listQuietly(client, DEPLOYMENTS,
        namespace, Optional.of(SERVING_SELECTOR)));
    objects.addAll(listQuietly(client, INFERENCE_SERVICES, namespace, Optional.empty()));
    return objects.stream().map(o -> endpoint(namespace, o))
        .sorted(Comparator.comparing(Endpoint::name).thenComparing(Endpoint::kind)).toList();
  }

  /** A serving Deployment of fairing4j's called {@code name}, else an InferenceService. */
  @Override
  public Optional<Endpoint> endpoint(String namespace, String name) {
    KubeRest client = rest.get();
    return findQuietly(client, DEPLOYMENTS, namespace, name)
        .filter(d -> JsonTree.text(d, "metadata", "labels", ServedModel.ROLE_LABEL).isPresent())
        .or(() -> findQuietly(client, INFERENCE_SERVICES, namespace, name))
        .map(object -> endpoint(namespace, object));
  }

  private Endpoint endpoint(String namespace, Map<String, Object> object) {
    String kind = JsonTree.text(object, "kind").orElse(
        JsonTree.text(object, "spec", "predictor").isPresent() ? JobKinds.INFERENCE_SERVICE
            : JobKinds.DEPLOYMENT);
    ResourceRef resource = JobKinds.isDeployment(kind) ? DEPLOYMENTS : INFERENCE_SERVICES;
    return new KubernetesEndpoint(rest, new JobRef(resource, namespace,
        JsonTree.text(object, "metadata", "name").orElse("")), ServedModel.of(object), timings);
  }

  /**
   * Whether {@code e} means the user has no such jobs to see: the kind's CRD is not installed
   * (404), or it is a kind newer than the RBAC document 0.1.0 shipped (XGBoostJob) and the user's
   * Role, made from that document, does not name it (403). A 403 on the kinds that document
   * names stays an error, which tells the user what to grant.
   */
  private static boolean absent(KubernetesApiException e, ResourceRef kind) {
    int status = e.httpStatus().orElse(0);
    return status == 404 || status == 403 && !RBAC_0_1_0.contains(kind.kind());
  }

  /** Reads one object; empty also when the kind's CRD is not installed (404 on the kind). */
  private static Optional<Map<String, Object>> findQuietly(KubeRest client, ResourceRef kind,
      String namespace, String name) {
    try {
      return client.find(kind, Optional.of(namespace), name);
    } catch (KubernetesApiException e) {
      if (absent(e, kind)) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /** The namespace's training jobs, by name. */
  private List<Found> jobs(String namespace) {
    KubeRest client = rest.get();
    List<Found> jobs = new ArrayList<>();
    for (ResourceRef kind : KUBEFLOW) {
      listQuietly(client, kind, namespace, Optional.empty())
          .forEach(o -> jobs.add(new Found(kind, o)));
    }
    listQuietly(client, BATCH, namespace, Optional.of(MANAGED_BY + "=fairing4j"))
        .stream().filter(KubernetesJobDirectory::ownJob)
        .forEach(o -> jobs.add(new Found(BATCH, o)));
    jobs.sort(Comparator.comparing(Found::name).thenComparing(f -> f.resource().kind()));
    return jobs;
  }

  private static List<Map<String, Object>> listQuietly(KubeRest client, ResourceRef kind,
      String namespace, Optional<String> selector) {
    try {
      return client.list(kind, Optional.of(namespace), selector, Optional.empty());
    } catch (KubernetesApiException e) {
      if (absent(e, kind)) {
        return List.of(); // the kind's CRD is not installed: no such jobs
      }
      throw e;
    }
  }

  private List<Map<String, Object>> pods(String namespace) {
    return rest.get().list(ResourceRef.PODS, Optional.of(namespace), Optional.empty(),
        Optional.empty());
  }

  private JobPhase phase(String namespace, Found job) {
    return new JobReader(rest.get(), job.ref(namespace)).status(job.object(), List.of()).phase();
  }

  private JobSummary summary(String namespace, Found job, List<Map<String, Object>> pods) {
    List<String> types = replicaTypes(job.object());
    Optional<String> node = podsOf(job, pods).stream()
        .map(p -> PodDiagnosis.read(p, job.resource().kind(), types))
        .filter(p -> p.node().isPresent())
        .min(Comparator.comparingInt((PodInfo p) -> JobKinds.rank(p.replicaType()))
            .thenComparingInt(PodInfo::index))
        .flatMap(PodInfo::node);
    return new JobSummary(job.name(), namespace, phase(namespace, job), job.resource().kind(),
        JsonTree.instant(job.object(), "metadata", "creationTimestamp"), node);
  }

  /**
   * The pods of {@code job} among {@code pods}: by the operator's labels (current, then
   * pre-1.6), batch Job pods by {@code job-name}; pods controlled by another kind are left out.
   */
  private static List<Map<String, Object>> podsOf(Found job, List<Map<String, Object>> pods) {
    String name = job.name();
    String kind = job.resource().kind();
    return pods.stream().filter(p -> {
      Map<String, Object> labels = JsonTree.map(p, "metadata", "labels");
      boolean labelled = JobKinds.isBatch(kind)
          ? name.equals(labels.get("job-name"))
              || name.equals(labels.get("batch.kubernetes.io/job-name"))
          : JobKinds.isTrainJob(kind) ? name.equals(labels.get(TrainJobs.JOBSET_NAME_LABEL))
          : name.equals(labels.get("training.kubeflow.org/job-name"))
              || ("kubeflow.org".equals(labels.get("group-name"))
                  && name.equals(labels.get("job-name")));
      return labelled && JobReader.controlledBy(p, kind);
    }).toList();
  }

  private static List<String> replicaTypes(Map<String, Object> object) {
    List<String> types = new ArrayList<>();
    JsonTree.map(object, "spec").forEach((key, value) -> {
      if (key.endsWith("ReplicaSpecs") && value instanceof Map<?, ?> specs) {
        specs.keySet().forEach(k -> types.add(String.valueOf(k)));
      }
    });
    return types;
  }

  /** A pod scheduled to a node and not finished holds its resources there. */
  private static boolean holdsResources(Map<String, Object> pod) {
    String phase = JsonTree.string(pod, "status", "phase").orElse("Pending");
    return JsonTree.text(pod, "spec", "nodeName").isPresent()
        && !phase.equals("Succeeded") && !phase.equals("Failed");
  }

  /** GPUs a pod asks for: its containers' GPU limits (requests where no limit is set). */
  private static int gpus(Map<String, Object> pod) {
    int sum = 0;
    for (Map<String, Object> container : JsonTree.maps(pod, "spec", "containers")) {
      for (String resource : GPU_RESOURCES) {
        Optional<Object> limit = JsonTree.at(container, "resources", "limits", resource);
        sum += count(limit.isPresent() ? limit
            : JsonTree.at(container, "resources", "requests", resource));
      }
    }
    return sum;
  }

  private static int count(Optional<Object> quantity) {
    if (quantity.isEmpty()) {
      return 0;
    }
    if (quantity.get() instanceof Number n) {
      return n.intValue();
    }
    try {
      return Integer.parseInt(String.valueOf(quantity.get()).trim());
    } catch (NumberFormatException e) {
      return 0; // GPUs are whole devices; anything else is not a GPU count
    }
  }

  @Override
  public String toString() {
    return cluster;
  }
}
