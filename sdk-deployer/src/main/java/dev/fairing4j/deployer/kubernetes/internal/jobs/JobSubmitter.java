package dev.fairing4j.deployer.kubernetes.internal.jobs;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.job.internal.RenderedJob;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException.Problem;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException;
import dev.fairing4j.deployer.kubernetes.internal.transport.ApiErrors;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeRest;
import dev.fairing4j.deployer.kubernetes.internal.transport.Operation;
import dev.fairing4j.deployer.kubernetes.internal.transport.ResourceRef;
import dev.fairing4j.deployer.kubernetes.internal.transport.Timings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates a rendered job's objects on the cluster.
 *
 * <p>Order: when the job has other objects (Services, Secrets, storage), the training object is
 * looked up first, so a taken name fails before anything is created; otherwise the create's own 409
 * tells (one request fewer). With {@code replaceExisting} the old job is then deleted with
 * Foreground propagation and awaited, because the operator reuses pod and Service names. Dependencies are created next, in
 * the rendered order, so the pods find their Secrets, Services and claims from the start; the
 * training object last. Then each dependency that belongs to the job gets an ownerReference to the
 * training object (its uid exists only now), so deleting the job cascades to them. When a step
 * fails, the objects this submission created are deleted again, so a retry starts clean.
 * PersistentVolumeClaims and PersistentVolumes are storage that outlives a job: an existing one is
 * kept as it is and none gets an owner.
 */
public final class JobSubmitter {
  private static final Logger LOG = LoggerFactory.getLogger(JobSubmitter.class);
  private static final Set<String> STORAGE_KINDS =
      Set.of("PersistentVolumeClaim", "PersistentVolume");

  private final KubeRest rest;
  private final Timings timings;

  /** Submits through {@code rest}. */
  public JobSubmitter(KubeRest rest, Timings timings) {
    this.rest = Objects.requireNonNull(rest, "rest");
    this.timings = Objects.requireNonNull(timings, "timings");
  }

  /** One object ready to send. */
  private record Planned(ResourceRef resource, Optional<String> namespace, String name,
      Map<String, Object> body) {
    String describe() {
      return resource.kind() + " " + name;
    }
  }

  /**
   * Creates every object of {@code job}; returns the training object as stored. Checks the objects
   * before the first request ({@link InvalidInputException}).
   */
  public Map<String, Object> submit(RenderedJob job, SubmitOptions options,
      ProgressListener progress) {
    List<Planned> plan = plan(job);
    Planned training = plan.get(plan.size() - 1);
    List<Planned> dependencies = plan.subList(0, plan.size() - 1);
    String step = "submit " + job.kind() + " " + job.name();
    long started = System.nanoTime();
    progress.onEvent(new ProgressEvent.StepStarted(step));

    // A look-up first only pays when other objects would otherwise be created before a taken
    // name is found; a job alone learns the same from its create's 409, one request sooner.
    if (!dependencies.isEmpty()
        && rest.find(training.resource(), training.namespace(), training.name()).isPresent()) {
      replace(training, options, progress);
    }

    List<Planned> created = new ArrayList<>();
    Map<String, Object> stored;
    try {
      for (Planned dependency : dependencies) {
        if (createDependency(dependency, options)) {
          created.add(dependency);
        }
      }
      Optional<Map<String, Object>> made = createTraining(training);
      if (made.isEmpty()) { // taken, found by the create itself
        replace(training, options, progress);
        made = createTraining(training);
      }
      stored = made.orElseThrow(() -> ApiErrors.alreadyExists(operation(training),
          replaceHint(training)));
    } catch (RuntimeException e) {
      rollBack(created);
      throw e;
    }
    adopt(created, training, stored);
    LOG.info("Created {} in namespace {} ({} dependent object(s))", training.describe(),
        job.namespace(), created.size());
    progress.onEvent(new ProgressEvent.StepFinished(step,
        Duration.ofNanos(System.nanoTime() - started)));
    return stored;
  }

  /**
   * Makes way for {@code training} whose name is taken: deletes the existing job (Foreground,
   * awaited, since the operator reuses pod and Service names) when the options allow it.
   */
  private void replace(Planned training, SubmitOptions options, ProgressListener progress) {
    if (!options.replaceExisting()) {
      throw ApiErrors.alreadyExists(operation(training), replaceHint(training));
    }
    progress.onEvent(new ProgressEvent.Note("deleting the existing " + training.describe()
        + " (replaceExisting)"));
    Deletion.deleteJobAndWait(rest, new JobRef(training.resource(),
        training.namespace().orElseThrow(), training.name()), timings);
  }

  /** Creates the training object; empty when its name is taken (409). */
  private Optional<Map<String, Object>> createTraining(Planned training) {
    try {
      // A TrainJob's fields differ between Trainer versions, an InferenceService's between
      // KServe versions: an unknown one must fail, not vanish.
      String kind = training.resource().kind();
      return Optional.of(rest.create(training.resource(), training.namespace(), training.body(),
          JobKinds.isTrainJob(kind) || JobKinds.INFERENCE_SERVICE.equals(kind)));
    } catch (KubernetesApiException e) {
      if (e.problem() == Problem.ALREADY_EXISTS) {
        return Optional.empty();
      }
      throw e;
    }
  }

  /** Creates one dependency; false when an existing one was kept instead. */
  private boolean createDependency(Planned dependency, SubmitOptions options) {
    try {
      rest.create(dependency.resource(), dependency.namespace(), dependency.body());
      return true;
    } catch (KubernetesApiException e) {
      if (e.problem() != Problem.ALREADY_EXISTS) {
        throw e;
      }
      if (STORAGE_KINDS.contains(dependency.resource().kind())) {
        LOG.info("{} exists already; keeping it", dependency.describe());
        return false;
      }
      if (!options.replaceExisting()) {
        throw ApiErrors.alreadyExists(operation(dependency),
            "it is left over from an earlier run or used by another job: call .replaceExisting()"
                + " to replace it, or delete it with 'kubectl delete "
                + dependency.resource().kubectlName() + " " + dependency.name()
                + dependency.namespace().map(n -> " -n " + n).orElse("") + "'");
      }
      Deletion.deleteAndWait(rest, dependency.resource(), dependency.namespace(),
          dependency.name(), Deletion.BACKGROUND, timings);
      rest.create(dependency.resource(), dependency.namespace(), dependency.body());
      return true;
    }
  }

  /** Adds an ownerReference to the training object to each created dependency that is the job's. */
  private void adopt(List<Planned> created, Planned training, Map<String, Object> stored) {
    Optional<String> uid = JsonTree.text(stored, "metadata", "uid");
    if (uid.isEmpty()) {
      LOG.warn("{} came back without a uid; its dependent objects get no ownerReference",
          training.describe());
      return;
    }
    Map<String, Object> owner = new LinkedHashMap<>();
    owner.put("apiVersion", training.resource().apiVersion());
    owner.put("kind", training.resource().kind());
    owner.put("name", training.name());
    owner.put("uid", uid.get());
    // blockOwnerDeletion would need the finalizers permission on the job; plain cascade does not.
    for (Planned dependency : created) {
      if (STORAGE_KINDS.contains(dependency.resource().kind())
          || !dependency.resource().namespaced()
          || !dependency.namespace().equals(training.namespace())) {
        continue;
      }
      List<Object> owners = new ArrayList<>(JsonTree.maps(dependency.body(), "metadata",
          "ownerReferences"));
      owners.add(owner);
      try {
        rest.mergePatch(dependency.resource(), dependency.namespace(), dependency.name(),
            Map.of("metadata", Map.of("ownerReferences", owners)));
      } catch (KubernetesApiException e) {
        // The job runs anyway; only the cascade on deletion is lost, so warn instead of failing.
        LOG.warn("Could not make {} owned by {}; delete it yourself after the job: {}",
            dependency.describe(), training.describe(), e.getMessage());
      }
    }
  }

  private void rollBack(List<Planned> created) {
    for (int i = created.size() - 1; i >= 0; i--) {
      Planned object = created.get(i);
      try {
        rest.delete(object.resource(), object.namespace(), object.name(), Deletion.BACKGROUND);
        LOG.info("Deleted {} again because the submission failed", object.describe());
      } catch (RuntimeException e) {
        LOG.warn("Could not delete {} after the failed submission: {}", object.describe(),
            e.getMessage());
      }
    }
  }

  private static Operation operation(Planned object) {
    return Operation.create(object.resource(), object.namespace(), object.name());
  }

  private static String replaceHint(Planned training) {
    return "call .replaceExisting() to delete it first, or .uniqueName() to add a generated"
        + " suffix; or delete it with 'kubectl delete " + training.resource().kubectlName() + " "
        + training.name() + training.namespace().map(n -> " -n " + n).orElse("") + "'";
  }

  private static List<Planned> plan(RenderedJob job) {
    if (job.objects().isEmpty()) {
      throw InvalidInputException.of("objects", "the rendered job " + job.name()
          + " holds no objects", "render at least the training object");
    }
    List<Planned> plan = new ArrayList<>();
    for (Map<String, Object> object : job.objects()) {
      plan.add(planOne(job, JsonTree.mutableCopy(object)));
    }
    Planned training = plan.get(plan.size() - 1);
    if (!training.resource().kind().equals(job.kind()) || !training.name().equals(job.name())) {
      throw InvalidInputException.of("objects", "the last object is " + training.describe()
          + ", not the training object " + job.kind() + " " + job.name(),
          "render the training object last");
    }
    return plan;
  }

  private static Planned planOne(RenderedJob job, Map<String, Object> body) {
    String kind = JsonTree.text(body, "kind").orElseThrow(() -> InvalidInputException.of(
        "objects", "an object of job " + job.name() + " has no kind", "set kind"));
    String apiVersion = JsonTree.text(body, "apiVersion").orElseThrow(
        () -> InvalidInputException.of("objects", "the " + kind + " of job " + job.name()
            + " has no apiVersion", "set apiVersion"));
    String name = JsonTree.text(body, "metadata", "name").orElseThrow(
        () -> InvalidInputException.of("objects", "a " + kind + " of job " + job.name()
            + " has no metadata.name", "set metadata.name"));
    ResourceRef resource = ResourceRef.of(apiVersion, kind);
    if (!resource.namespaced()) {
      return new Planned(resource, Optional.empty(), name, body);
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> metadata = (Map<String, Object>) body.get("metadata");
    Optional<String> declared = JsonTree.text(metadata, "namespace");
    if (declared.isPresent() && !declared.get().equals(job.namespace())) {
      throw InvalidInputException.of("namespace", kind + " " + name + " declares namespace '"
          + declared.get() + "' but the job runs in '" + job.namespace() + "'",
          "render every object into the job's namespace");
    }
    metadata.put("namespace", job.namespace());
    return new Planned(resource, Optional.of(job.namespace()), name, body);
  }
}
