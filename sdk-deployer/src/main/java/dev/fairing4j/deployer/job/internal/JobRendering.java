package dev.fairing4j.deployer.job.internal;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.DeploymentPlan;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.job.Cluster;
import dev.fairing4j.deployer.job.JobOptions;
import dev.fairing4j.deployer.job.PodTemplate;
import dev.fairing4j.deployer.job.ReplicaType;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Turns a deployer's settings into the objects to submit, the same way for every kind: checks
 * first, then one pod template per replica slot (container, args, env, labels), the mutators in
 * order, checks of what they produced, canonical key order, and the kind's spec around it.
 * Every deployer's plan ({@link #plan}) is made here, once per job: a dry run shows exactly
 * what a run submits.
 */
public final class JobRendering {
  /**
   * Where a plan's objects hold the image until it exists ({@link RenderedJob#withImage}); never
   * submitted.
   */
  static final String PLANNED_IMAGE = "planned.invalid/fairing4j:planned";

  private JobRendering() {}

  /**
   * Checks the job and renders it once, with the image to be filled in: every check that can
   * run without the cluster (the kind's own, the name against its pod-name suffixes, mutator
   * targets, what the mutators produced), and the name chosen (a fresh suffix when
   * {@code uniqueName()} is set), so what a dry run shows and a run submits is what was
   * checked.
   *
   * @throws InvalidInputException naming the field and the fix
   */
  public static DeploymentPlan plan(JobOptions requested, JobKind kind, BuildContext context) {
    return plan(requested, kind, context, new SubmitOptions(requested.replaceExisting(),
        kind.adaptTrainerApi()), Optional.empty(), Optional.empty());
  }

  /**
   * {@link #plan} for an endpoint serving {@code model}: its objects (a Deployment and its
   * Service) are created on the cluster by {@link DeploymentPlan#serve}, with
   * {@code imageWhenNone} when no image was built.
   */
  public static DeploymentPlan planEndpoint(JobOptions requested, JobKind kind,
      BuildContext context, String model, Optional<ImageRef> imageWhenNone) {
    return plan(requested, kind, context, new SubmitOptions(requested.replaceExisting()),
        Optional.of(model), imageWhenNone);
  }

  private static DeploymentPlan plan(JobOptions requested, JobKind kind, BuildContext context,
      SubmitOptions submit, Optional<String> model, Optional<ImageRef> imageWhenNone) {
    checkConfiguration(requested, kind);
    // After the job's own checks, so that its mistakes are reported first; before the build, so
    // that a broken kubeconfig does not cost a whole image push. A job with its own namespace
    // needs nothing from the kubeconfig to render (a dry run on a machine whose KUBECONFIG names
    // a missing file); a submission reads it anyway (Pipeline.run checks the target first).
    if (requested.namespace().isEmpty()) {
      requested.cluster().flatMap(ClusterBackends::of)
          .ifPresent(ClusterBackend::checkConfiguration);
    }
    JobOptions options = withClusterNamespace(requested);
    String name = options.uniqueName() ? Names.unique(options.name()) : options.name();
    RenderedJob job = build(options, kind, context, PLANNED_IMAGE, name);
    return new JobPlan(job, context, submit, () -> backend(options, kind.kind()),
        () -> imageWhenNone.map(ImageRef::reference)
            .orElseGet(() -> placeholder(options, context)), model);
  }

  /**
   * The objects {@code plan} submits with {@code image}, secrets and all: a plan of the SDK's
   * deployers gives them as rendered; one of a deployer of the user's, as its YAML reads (with
   * what it redacts redacted).
   */
  public static List<Map<String, Object>> objects(DeploymentPlan plan, Optional<ImageRef> image) {
    if (plan instanceof JobPlan job) {
      return job.job(image).objects();
    }
    return Yaml.read(plan.render(image));
  }

  /**
   * Checks that the job has a cluster of fairing4j's to run on and that the cluster's local
   * configuration reads; sends nothing.
   *
   * @throws InvalidInputException naming {@code cluster} or the configuration setting
   */
  public static void checkTarget(JobOptions options, String kind) {
    ClusterBackend backend = backend(options, kind);
    backend.checkTarget();
    backend.checkNamespace(withClusterNamespace(options).namespace().orElse("default"));
  }

  private static ClusterBackend backend(JobOptions options, String kind) {
    Cluster cluster = options.cluster().orElseThrow(() -> InvalidInputException.of("cluster",
        "is not set, so " + kind + " " + options.name() + " has nowhere to run",
        "add .on(Clusters.kubernetes()) or .on(Clusters.local()) to the deployer"));
    return ClusterBackends.of(cluster).orElseThrow(() -> InvalidInputException.of("cluster",
        cluster.describe() + " is not a cluster fairing4j can submit to",
        "use a cluster from Clusters, e.g. .on(Clusters.kubernetes())"));
  }

  // The deployer's namespace wins; unset, the cluster's (a kubeconfig context's) applies.
  private static JobOptions withClusterNamespace(JobOptions options) {
    if (options.namespace().isPresent()) {
      return options;
    }
    return options.cluster()
        .flatMap(ClusterBackends::of)
        .flatMap(ClusterBackend::jobNamespace)
        .map(options::withNamespace)
        .orElse(options);
  }

  /** The image a local-cluster job names: it runs the context, so nothing is pulled. */
  public static String localImage(BuildContext context) {
    return "fairing4j.local/context:" + context.contentTag();
  }

  private static String placeholder(JobOptions options, BuildContext context) {
    boolean direct = options.cluster().flatMap(ClusterBackends::of)
        .map(ClusterBackend::runsContextDirectly).orElse(false);
    if (!direct) {
      throw InvalidInputException.of("builder", "no image was given for " + options.name()
          + ", and its cluster runs images",
          "add .builder(Builders.jib(\"<base image>\").pushTo(\"<registry>/<repository>\")) to"
              + " the pipeline, or deploy on Clusters.local()");
    }
    return localImage(context);
  }

  private static void checkConfiguration(JobOptions options, JobKind kind) {
    kind.validate(options);
    Validators.jobName("name", options.name(),
        kind.reservedNameSuffix() + (options.uniqueName() ? Names.UNIQUE_SUFFIX_LENGTH : 0));
    Set<ReplicaType> present = EnumSet.noneOf(ReplicaType.class);
    kind.slots().forEach(slot -> slot.type().ifPresent(present::add));
    for (JobOptions.MutatorBinding binding : options.mutators()) {
      for (ReplicaType target : binding.targets()) {
        if (!present.contains(target)) {
          throw InvalidInputException.of("mutate(.., " + target + ")", kind.kind() + " "
              + options.name() + " has no " + target + " replicas" + (present.isEmpty() ? ""
                  : " (it has " + present + ")"),
              present.isEmpty() ? "use mutate(mutator) without a replica type"
                  : "give the job " + target + " replicas, or target one of " + present);
        }
      }
    }
  }

  private static RenderedJob build(JobOptions options, JobKind kind, BuildContext context,
      String image, String name) {
    String runId = options.runId().orElseGet(() -> Names.runId(options.effectiveNamespace(), name,
        context.digest()));
    Map<String, String> labels = new TreeMap<>(options.labels());
    labels.put(Metadata.MANAGED_BY, Metadata.MANAGED_BY_VALUE);
    labels.put(Metadata.JOB_NAME, name);
    labels.put(Metadata.RUN_ID, runId);

    Optional<String> pullSecret = options.pullCredentials().map(c -> PullSecret.name(name));
    List<Map<String, Object>> templates = new ArrayList<>();
    for (ReplicaSlot slot : kind.slots()) {
      templates.add(podTemplate(options, kind, context, image, name, labels, slot, pullSecret));
    }

    Map<String, Object> metadata = objectMetadata(name, options, labels);
    List<Map<String, Object>> objects = new ArrayList<>();
    // First, so the Secret exists before any pod tries to pull.
    options.pullCredentials().ifPresent(credentials -> objects.add(Canonical.object(Json.prune(
        PullSecret.manifest(name, Json.copyMap(metadata), credentials)))));
    for (Map<String, Object> dependency : kind.dependencies(name,
        Json.copyMap(metadata))) {
      objects.add(Canonical.object(Json.prune(dependency)));
    }
    Map<String, Object> trainingMetadata = Json.copyMap(metadata);
    Map<String, String> trainingLabels = new TreeMap<>(labels);
    trainingLabels.putAll(kind.trainingObjectLabels(options));
    trainingMetadata.put("labels", Json.copy(trainingLabels));
    Map<String, String> trainingAnnotations = new TreeMap<>(options.annotations());
    trainingAnnotations.putAll(kind.trainingObjectAnnotations());
    trainingMetadata.put("annotations", Json.copy(trainingAnnotations));

    Map<String, Object> object = Json.map();
    object.put("apiVersion", kind.apiVersion());
    object.put("kind", kind.kind());
    object.put("metadata", trainingMetadata);
    object.put("spec", kind.spec(name, options, templates));
    objects.add(Canonical.object(Json.prune(object)));
    return new RenderedJob(kind.kind(), name, options.effectiveNamespace(), objects);
  }

  private static Map<String, Object> objectMetadata(String name, JobOptions options,
      Map<String, String> labels) {
    Map<String, Object> metadata = Json.map();
    metadata.put("name", name);
    metadata.put("namespace", options.effectiveNamespace());
    metadata.put("labels", Json.copy(labels));
    metadata.put("annotations", Json.copy(options.annotations()));
    return metadata;
  }

  private static Map<String, Object> podTemplate(JobOptions options, JobKind kind,
      BuildContext context, String image, String name, Map<String, String> labels,
      ReplicaSlot slot, Optional<String> pullSecret) {
    Map<String, Object> container = Json.map();
    container.put("name", kind.containerName());
    container.put("image", image);
    container.put("command", Json.copy(context.command()));
    // The deployer's arguments replace the image's default ones, as a pod's args replace CMD.
    container.put("args", Json.copy(options.args().isEmpty() ? context.args() : options.args()));
    container.put("workingDir", context.workingDir());
    kind.port().ifPresent(port -> {
      Map<String, Object> entry = Json.map();
      entry.put("name", port.name());
      entry.put("containerPort", port.number());
      container.put("ports", new ArrayList<>(List.of(entry)));
    });
    List<Object> env = new ArrayList<>();
    kind.synthesizedEnv(name, options.effectiveNamespace()).forEach(entry -> env.add(Json.copy(entry)));
    container.put("env", env);

    Map<String, Object> template = Json.map();
    Map<String, Object> metadata = Json.child(template, "metadata");
    metadata.put("labels", Json.copy(labels));
    Map<String, String> annotations = new TreeMap<>(options.annotations());
    if (options.istioSidecarDisabled()) {
      annotations.put(Metadata.ISTIO_INJECT, "false");
    }
    metadata.put("annotations", Json.copy(annotations));
    Json.list(Json.child(template, "spec"), "containers").add(container);

    PodTemplate view = PodTemplate.of(kind.kind(), slot.type(), false, kind.containerName(),
        template);
    options.env().forEach(view::putEnv);
    pullSecret.ifPresent(view::addImagePullSecret);
    for (JobOptions.MutatorBinding binding : options.mutators()) {
      if (binding.appliesTo(slot.type())) {
        binding.mutator().apply(PodTemplate.of(kind.kind(), slot.type(),
            !binding.targets().isEmpty(), kind.containerName(), template));
      }
    }
    view.podSpec().putAll(Json.copyMap(kind.podSpecFields(name)));
    TemplateChecks.check(view);
    return Canonical.podTemplate(Json.prune(template));
  }
}
