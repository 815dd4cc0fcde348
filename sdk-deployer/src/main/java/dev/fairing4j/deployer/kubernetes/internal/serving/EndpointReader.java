package dev.fairing4j.deployer.kubernetes.internal.serving;

import dev.fairing4j.core.EndpointStatus;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.job.internal.LastLines;
import dev.fairing4j.deployer.job.internal.ServedModel;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobKinds;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobReader;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobRef;
import dev.fairing4j.deployer.kubernetes.internal.jobs.PodDiagnosis;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeRest;
import dev.fairing4j.deployer.kubernetes.internal.transport.Operation;
import dev.fairing4j.deployer.kubernetes.internal.transport.ResourceRef;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Reads a serving Deployment's status: replicas wanted and ready, its pods, and what holds it
 * when something other than starting up does. A pod waiting on an image that does not pull or a
 * crashing server says so in its container status; a model that failed to load does not (the
 * server stays up and only its readiness path answers 503), so for a running pod that is not
 * ready the server's own readiness answer is asked through the API server's pod proxy.
 */
public final class EndpointReader {
  // Waiting reasons that hold a serving pod until someone fixes something. ErrImagePull is the
  // first failed pull and turns into ImagePullBackOff within seconds if it persists.
  private static final Set<String> HOPELESS = PodDiagnosis.BAD_WAITING.stream()
      .filter(r -> !r.equals("ErrImagePull")).collect(java.util.stream.Collectors.toSet());
  private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(5);
  private static final int PREVIOUS_LOG_BYTES = 64 * 1024;

  private final KubeRest rest;
  private final JobRef endpoint;
  private final String model;
  private final int port;

  /** Reads {@code endpoint}, whose server answers to {@code model} on {@code port}. */
  public EndpointReader(KubeRest rest, JobRef endpoint, String model, int port) {
    this.rest = Objects.requireNonNull(rest, "rest");
    this.endpoint = Objects.requireNonNull(endpoint, "endpoint");
    this.model = Objects.requireNonNull(model, "model");
    this.port = port;
  }

  /**
   * The status now, with {@code url} as the endpoint's URL.
   *
   * @throws KubernetesApiException NOT_FOUND when the Deployment is gone
   */
  public EndpointStatus status(String url) {
    JobReader reader = new JobReader(rest, endpoint);
    Map<String, Object> object = reader.requireObject();
    List<JobReader.JobPod> pods = reader.jobPods(object);
    int replicas;
    int ready;
    if (JobKinds.isDeployment(endpoint.kind())) {
      replicas = JsonTree.integer(object, "spec", "replicas").orElse(1);
      ready = JsonTree.integer(object, "status", "readyReplicas").orElse(0);
    } else {
      // KServe says when the whole service is Ready; its pods (and their count, which the
      // autoscaler sets) are what a reader sees behind it.
      replicas = Math.max(Math.max(1, pods.size()), JsonTree.integer(object, "spec",
          "predictor", "minReplicas").orElse(1));
      boolean serviceReady = condition(object, "Ready").filter("True"::equals).isPresent();
      long podsReady = pods.stream().filter(p -> podReady(p.object())).count();
      ready = serviceReady ? replicas : (int) Math.min(podsReady, replicas - 1);
      url = JsonTree.text(object, "status", "address", "url")
          .or(() -> JsonTree.text(object, "status", "url"))
          .map(base -> base.replaceAll("/+$", "") + "/v1/models/" + model + ":predict")
          .orElse(url);
    }
    Optional<String> problem = ready >= replicas && replicas > 0 ? Optional.empty()
        : problem(object, pods);
    return new EndpointStatus(endpoint.name(), endpoint.namespace(), endpoint.kind(), url,
        replicas, ready, pods.stream().map(JobReader.JobPod::info).toList(), problem);
  }

  private static Optional<String> condition(Map<String, Object> object, String type) {
    return JsonTree.maps(object, "status", "conditions").stream()
        .filter(c -> type.equals(JsonTree.text(c, "type").orElse("")))
        .findFirst().flatMap(c -> JsonTree.text(c, "status"));
  }

  /** The last lines the model server of {@code pod} wrote (its previous run's after a crash). */
  public List<String> lastLines(PodInfo pod) {
    String container = ServedModel.CONTAINER;
    // A crashed server's words are in its previous run's log; the current one is empty.
    boolean crashed = pod.reason().filter(r -> r.equals("CrashLoopBackOff")).isPresent();
    try {
      String text = crashed
          ? rest.readPreviousLog(endpoint.namespace(), pod.name(), container, LastLines.READ,
              PREVIOUS_LOG_BYTES)
          : rest.readLog(endpoint.namespace(), pod.name(), container,
              Optional.of(LastLines.READ), false, Optional.empty());
      return LastLines.of(text.lines().toList());
    } catch (KubernetesApiException e) {
      return List.of();
    }
  }

  private Optional<String> problem(Map<String, Object> deployment,
      List<JobReader.JobPod> pods) {
    // KServe's own verdict on an InferenceService's model: a spec no runtime serves, a model
    // that failed to load (status.modelStatus, with the reason from its fixed list).
    String transition = JsonTree.text(deployment, "status", "modelStatus", "transitionStatus")
        .orElse("");
    if (transition.equals("InvalidSpec") || transition.equals("BlockedByFailedLoad")) {
      Map<String, Object> failure = JsonTree.map(deployment, "status", "modelStatus",
          "lastFailureInfo");
      return Optional.of("KServe reports " + transition + JsonTree.text(failure, "reason")
          .map(r -> " (" + r + ")").orElse("") + JsonTree.text(failure, "message")
          .map(m -> ": " + m).orElse(""));
    }
    for (Map<String, Object> condition : JsonTree.maps(deployment, "status", "conditions")) {
      String type = JsonTree.text(condition, "type").orElse("");
      String reason = JsonTree.text(condition, "reason").orElse("");
      boolean failed = "ReplicaFailure".equals(type)
          && "True".equals(JsonTree.text(condition, "status").orElse(""));
      if (failed || "ProgressDeadlineExceeded".equals(reason)) {
        return Optional.of(type + " (" + reason + "): "
            + JsonTree.text(condition, "message").orElse(""));
      }
    }
    for (JobReader.JobPod pod : pods) {
      PodInfo info = pod.info();
      if (info.reason().filter(HOPELESS::contains).isPresent()) {
        return Optional.of("pod " + info.name() + " is " + info.reason().get()
            + info.message().map(m -> ": " + m).orElse("") + lastRun(pod.object()));
      }
    }
    for (JobReader.JobPod pod : pods) {
      if ("Running".equals(pod.info().phase()) && !podReady(pod.object())) {
        Optional<String> error = loadError(pod.info().name());
        if (error.isPresent()) {
          return Optional.of("the model " + model + " failed to load on pod "
              + pod.info().name() + ": " + error.get());
        }
      }
    }
    return Optional.empty();
  }

  // Why the server's last run ended (OOMKilled, Error) and its exit code: what a crash loop
  // hides behind its back-off.
  private static String lastRun(Map<String, Object> pod) {
    for (Map<String, Object> status : JsonTree.maps(pod, "status", "containerStatuses")) {
      Map<String, Object> ended = JsonTree.map(status, "lastState", "terminated");
      if (!ended.isEmpty()) {
        return " (last run: " + JsonTree.text(ended, "reason").orElse("ended")
            + JsonTree.integer(ended, "exitCode").map(c -> ", exit code " + c).orElse("") + ")";
      }
    }
    return "";
  }

  private static boolean podReady(Map<String, Object> pod) {
    return JsonTree.maps(pod, "status", "conditions").stream().anyMatch(c ->
        "Ready".equals(JsonTree.text(c, "type").orElse(""))
            && "True".equals(JsonTree.text(c, "status").orElse("")));
  }

  // The server's readiness answer carries the load error; a server still starting answers
  // nothing useful yet, which is no problem.
  private Optional<String> loadError(String pod) {
    Operation operation = Operation.on("get", ResourceRef.PODS,
        Optional.of(endpoint.namespace()), pod).sub("proxy");
    String path = operation.path().replace("/pods/" + pod + "/proxy",
        "/pods/" + pod + ":" + port + "/proxy") + "/v1/models/" + model;
    try {
      KubeRest.Response answer = rest.proxy("GET", path, Optional.empty(), operation,
          PROBE_TIMEOUT);
      return JsonTree.text(answer.json(), "error");
    } catch (KubernetesApiException e) {
      return Optional.empty();
    }
  }
}
