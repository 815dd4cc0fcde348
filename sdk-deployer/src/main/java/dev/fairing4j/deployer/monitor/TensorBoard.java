package dev.fairing4j.deployer.monitor;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.job.internal.OwnedObjects;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A TensorBoard for a training job: a Deployment running {@code tensorboard --logdir ...
 * --bind_all --port 6006} on the job's log directory (a path on a PersistentVolumeClaim,
 * mounted read-only) and a Service on port 6006, both owned by the job so they go with it.
 * An immutable request: each call returns a new one; {@link #start()} creates the objects and
 * returns how to reach them.
 *
 * <pre>{@code
 * TensorBoardInstance tb = TensorBoard.forJob(job)
 *     .logDir("traindb-models-claim", "runs/mnist").start();
 * tb.portForwardCommand();   // kubectl port-forward -n kubeflow svc/mnist-tensorboard 6006:6006
 * }</pre>
 */
public final class TensorBoard {
  /** The image used unless {@link #image} names another; it ships the tensorboard command. */
  public static final String DEFAULT_IMAGE = "tensorflow/tensorflow:2.16.1";
  /** TensorBoard's port, in the container and on the Service. */
  public static final int PORT = 6006;
  private static final String MOUNT = "/tensorboard-logs";

  private final TrainingJob job;
  private final Optional<String> claim;
  private final String path;
  private final String image;
  private final Optional<String> name;

  private TensorBoard(TrainingJob job, Optional<String> claim, String path, String image,
      Optional<String> name) {
    this.job = job;
    this.claim = claim;
    this.path = path;
    this.image = image;
    this.name = name;
  }

  /** A TensorBoard for {@code job}; name its log directory with {@link #logDir}. */
  public static TensorBoard forJob(TrainingJob job) {
    Objects.requireNonNull(job, "job");
    return new TensorBoard(job, Optional.empty(), "", DEFAULT_IMAGE, Optional.empty());
  }

  /**
   * Reads the event files under {@code path} (relative, e.g. {@code runs/mnist}; empty for the
   * claim's root) on the PersistentVolumeClaim {@code claim}.
   */
  public TensorBoard logDir(String claim, String path) {
    String validClaim = Validators.dns1123Subdomain("claim", claim);
    String cleaned = Objects.requireNonNull(path, "path").trim().replaceAll("^/+|/+$", "");
    if (List.of(cleaned.split("/")).contains("..")) {
      throw InvalidInputException.of("path", "'" + path + "' leaves the claim",
          "give a path inside the claim, e.g. 'runs/mnist'");
    }
    return new TensorBoard(job, Optional.of(validClaim), cleaned, image, name);
  }

  /** Runs {@code image} instead of {@value #DEFAULT_IMAGE}; it must provide {@code tensorboard}. */
  public TensorBoard image(String image) {
    return new TensorBoard(job, claim, path, Validators.requireText("image", image).trim(), name);
  }

  /** Names the Deployment and Service (default: {@code <job>-tensorboard}). */
  public TensorBoard name(String name) {
    return new TensorBoard(job, claim, path, image,
        Optional.of(Validators.dns1035Label("name", name)));
  }

  /** The Deployment and Service this creates, without the owner reference. */
  public List<Map<String, Object>> manifests() {
    String claimName = claim.orElseThrow(() -> InvalidInputException.of("logDir",
        "no log directory", "call logDir(claim, path) with the PVC the job writes to"));
    String objectName = objectName();
    Map<String, Object> labels = new LinkedHashMap<>();
    labels.put("app.kubernetes.io/name", "tensorboard");
    labels.put("app.kubernetes.io/instance", objectName);
    labels.put("app.kubernetes.io/managed-by", "fairing4j");
    Map<String, Object> selector = Map.of("app.kubernetes.io/instance", objectName);
    Map<String, Object> container = new LinkedHashMap<>();
    container.put("name", "tensorboard");
    container.put("image", image);
    container.put("command", List.of("tensorboard"));
    container.put("args", List.of("--logdir", logDirInContainer(), "--bind_all", "--port",
        String.valueOf(PORT)));
    container.put("ports", List.of(Map.of("name", "http", "containerPort", PORT)));
    container.put("volumeMounts", List.of(Map.of("name", "logs", "mountPath", MOUNT,
        "readOnly", true)));
    Map<String, Object> deployment = new LinkedHashMap<>();
    deployment.put("apiVersion", "apps/v1");
    deployment.put("kind", "Deployment");
    deployment.put("metadata", Map.of("name", objectName, "labels", labels));
    deployment.put("spec", Map.of("replicas", 1,
        "selector", Map.of("matchLabels", selector),
        "template", Map.of("metadata", Map.of("labels", labels),
            "spec", Map.of("containers", List.of(container),
                "volumes", List.of(Map.of("name", "logs", "persistentVolumeClaim",
                    Map.of("claimName", claimName, "readOnly", true)))))));
    Map<String, Object> service = new LinkedHashMap<>();
    service.put("apiVersion", "v1");
    service.put("kind", "Service");
    service.put("metadata", Map.of("name", objectName, "labels", labels));
    service.put("spec", Map.of("selector", selector, "ports", List.of(Map.of("name", "http",
        "port", PORT, "targetPort", PORT))));
    return List.of(deployment, service);
  }

  /**
   * Creates the Deployment and Service owned by the job (kept as they are when they exist) and
   * says how to reach TensorBoard.
   *
   * @throws InvalidInputException when no log directory was named, or the job is not on a
   *     Kubernetes cluster
   */
  public TensorBoardInstance start() {
    List<Map<String, Object>> objects = manifests();
    OwnedObjects owned = OwnedObjects.of(job).orElseThrow(() -> InvalidInputException.of("job",
        job.kind() + " " + job.name() + " does not run on a Kubernetes cluster",
        "TensorBoard needs a job on a cluster"));
    owned.createOwned(objects);
    return new TensorBoardInstance(objectName(), job.namespace(), logDirInContainer(),
        "kubectl port-forward -n " + job.namespace() + " svc/" + objectName() + " " + PORT + ":"
            + PORT);
  }

  private String objectName() {
    return name.orElse(job.name() + "-tensorboard");
  }

  private String logDirInContainer() {
    return path.isEmpty() ? MOUNT : MOUNT + "/" + path;
  }

  @Override
  public String toString() {
    return "TensorBoard(" + job.name() + claim.map(c -> ", " + c + ":/" + path).orElse("")
        + ", " + image + ")";
  }
}
