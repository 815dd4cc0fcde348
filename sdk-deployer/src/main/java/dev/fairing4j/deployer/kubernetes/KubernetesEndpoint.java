package dev.fairing4j.deployer.kubernetes;

import dev.fairing4j.core.Endpoint;
import dev.fairing4j.core.EndpointNotReadyException;
import dev.fairing4j.core.EndpointStatus;
import dev.fairing4j.core.JobLogs;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.PredictionException;
import dev.fairing4j.core.internal.KernelBridge;
import dev.fairing4j.deployer.job.internal.PredictProtocol;
import dev.fairing4j.deployer.kubernetes.internal.jobs.Deletion;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobKinds;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobRef;
import dev.fairing4j.deployer.kubernetes.internal.logs.KubernetesJobLogs;
import dev.fairing4j.deployer.kubernetes.internal.serving.EndpointReader;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeRest;
import dev.fairing4j.deployer.kubernetes.internal.transport.Operation;
import dev.fairing4j.deployer.kubernetes.internal.transport.ResourceRef;
import dev.fairing4j.deployer.kubernetes.internal.transport.Timings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An endpoint served by a Deployment and a Service, or by a KServe InferenceService (whose
 * predictor Service is {@code <name>-predictor}), on Kubernetes. Predict requests go through
 * the API server's service proxy ({@code /api/v1/namespaces/<ns>/services/<name>:80/proxy/...}),
 * so they work from wherever the kubeconfig does, with no ingress or port-forward; the RBAC they
 * need is {@code services/proxy} (create) and, to tell why a model is not ready,
 * {@code pods/proxy} (get). Holds no connection between calls.
 */
final class KubernetesEndpoint implements Endpoint {
  private static final Logger LOG = LoggerFactory.getLogger(KubernetesEndpoint.class);
  /** How long one predict may take, the model's work included. */
  static final Duration PREDICT_TIMEOUT = Duration.ofSeconds(60);
  private static final ResourceRef SERVICES = ResourceRef.of("v1", "Service");
  private static final int SERVICE_PORT = 80;
  private static final int SERVER_PORT = 8080;

  private final Supplier<KubeRest> rest;
  private final JobRef deployment;
  private final String model;
  private final Timings timings;

  KubernetesEndpoint(Supplier<KubeRest> rest, JobRef deployment, String model, Timings timings) {
    KernelBridge.install();  // an endpoint handle is displayable: the first registers the renderer
    this.rest = Objects.requireNonNull(rest, "rest");
    this.deployment = Objects.requireNonNull(deployment, "deployment");
    this.model = Objects.requireNonNull(model, "model");
    this.timings = Objects.requireNonNull(timings, "timings");
  }

  @Override
  public String name() {
    return deployment.name();
  }

  @Override
  public String namespace() {
    return deployment.namespace();
  }

  @Override
  public String kind() {
    return deployment.kind();
  }

  @Override
  public String modelName() {
    return model;
  }

  /**
   * The Service's cluster-internal predict URL: {@code <name>}'s for a Deployment, KServe's
   * {@code <name>-predictor} for an InferenceService (whose status may name another, e.g. an
   * ingress host: see {@code status().url()}).
   */
  @Override
  public String url() {
    return "http://" + service() + "." + namespace() + ".svc.cluster.local/v1/models/" + model
        + ":predict";
  }

  // KServe names an InferenceService's predictor Service <name>-predictor.
  private String service() {
    return JobKinds.isDeployment(kind()) ? name() : name() + "-predictor";
  }

  @Override
  public EndpointStatus status() {
    return reader().status(url());
  }

  @Override
  public EndpointStatus waitUntilReady(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    long deadline = System.nanoTime() + timeout.toNanos();
    String said = "";
    while (true) {
      EndpointReader reader = reader();
      EndpointStatus status = reader.status(url());
      if (status.ready()) {
        LOG.info("{} is ready: {}/{} replicas", this, status.readyReplicas(), status.replicas());
        return status;
      }
      if (status.problem().isPresent()) {
        throw notReady(reader, status);
      }
      String now = status.toString();
      if (!now.equals(said)) {
        LOG.info("Waiting for {}", now);
        said = now;
      }
      if (System.nanoTime() - deadline >= 0) {
        throw new EndpointNotReadyException(status, timeout, waitingFor(status));
      }
      Timings.sleep(timings.poll(), "wait for endpoint " + name());
    }
  }

  private EndpointNotReadyException notReady(EndpointReader reader, EndpointStatus status) {
    String problem = status.problem().orElse("");
    String why = status.pods().stream().filter(p -> problem.contains(p.name())).findFirst()
        .map(pod -> PredictProtocol.withLastLines(problem, pod.name(), reader.lastLines(pod)))
        .orElse(problem);
    String hint = problem.contains("OOMKilled")
        ? "the server ran out of memory: give the pods more with"
            + " .mutate(Mutators.resources(cpu, memory)), or load a smaller model"
        : problem.contains("failed to load")
        ? "fix the predictor's loading (its traceback is in endpoint.logs()), then serve again"
            + " with .replaceExisting()"
        : problem.contains("Image") || problem.contains("image")
            ? "check the image reference and that the cluster can pull it (pull credentials)"
            : "read endpoint.logs() and endpoint.status(); fix, then serve again with"
                + " .replaceExisting()";
    return new EndpointNotReadyException(status, why, hint);
  }

  private static String waitingFor(EndpointStatus status) {
    List<String> pods = new ArrayList<>();
    for (PodInfo pod : status.pods()) {
      pods.add(pod.toString());
    }
    return status.readyReplicas() + " of " + status.replicas() + " replicas ready"
        + (pods.isEmpty() ? ", no pod yet" : "; pods: " + String.join(", ", pods));
  }

  @Override
  public String predict(String requestJson) {
    return send(PredictProtocol.requireObject(requestJson));
  }

  @Override
  public List<Object> predict(List<?> instances) {
    return PredictProtocol.predictions(send(PredictProtocol.request(instances)), subject(),
        url());
  }

  private String send(String body) {
    Operation operation = Operation.on("create", SERVICES, Optional.of(namespace()), service())
        .sub("proxy");
    String path = SERVICES.objectPath(Optional.of(namespace()), service() + ":" + SERVICE_PORT)
        + "/proxy/v1/models/" + model + ":predict";
    KubeRest.Response answer = rest.get().proxy("POST", path, Optional.of(body), operation,
        PREDICT_TIMEOUT);
    if (answer.ok()) {
      return answer.body();
    }
    // The model server answers {"error": ...}; the API server itself a Status with a message.
    String error = PredictProtocol.errorOf(answer.body());
    String hint = answer.code() == 500 && PredictProtocol.fromModelServer(answer.body())
        ? "the predictor raised this; its traceback is in endpoint.logs()"
        : answer.code() == 503 || error.contains("no endpoints available")
            ? "no replica is ready: call endpoint.waitUntilReady(..) first, and read"
                + " endpoint.status()"
            : answer.code() == 403 ? "the kubeconfig's user needs RBAC 'create' on"
                + " services/proxy in namespace " + namespace() + " (see docs/rbac.yaml)"
            : "read endpoint.logs()";
    throw new PredictionException(subject(), answer.code(), error, hint);
  }

  private String subject() {
    return namespace() + "/" + name();
  }

  @Override
  public JobLogs logs() {
    return new KubernetesJobLogs(rest, deployment, timings);
  }

  /**
   * Deletes the Deployment (its ReplicaSets and pods first, Foreground) and its Service, or the
   * InferenceService (KServe's objects go with it), and waits until they are gone, so the name
   * can be served again at once.
   */
  @Override
  public void delete() {
    KubeRest client = rest.get();
    boolean deleted = Deletion.deleteAndWait(client, deployment.resource(), deployment.ns(),
        name(), Deletion.FOREGROUND, timings);
    if (JobKinds.isDeployment(kind())) {
      Deletion.deleteAndWait(client, SERVICES, deployment.ns(), name(), Deletion.BACKGROUND,
          timings);
    }
    LOG.info(deleted ? "Deleted {}" : "{} was already gone", this);
  }

  private EndpointReader reader() {
    return new EndpointReader(rest.get(), deployment, model, SERVER_PORT);
  }

  @Override
  public String toString() {
    return "endpoint " + deployment + " (model " + model + ")";
  }
}
