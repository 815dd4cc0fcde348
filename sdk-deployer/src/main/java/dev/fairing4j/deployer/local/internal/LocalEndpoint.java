package dev.fairing4j.deployer.local.internal;

import dev.fairing4j.core.Endpoint;
import dev.fairing4j.core.EndpointNotReadyException;
import dev.fairing4j.core.EndpointStatus;
import dev.fairing4j.core.JobLogs;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.PredictionException;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.internal.KernelBridge;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.job.internal.LastLines;
import dev.fairing4j.deployer.job.internal.PredictProtocol;
import dev.fairing4j.deployer.local.internal.state.JobRecord;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An endpoint served on this machine: the replicas of a local serving Deployment, each a model
 * server on its own free loopback port (the one its pod declares, 8080, mapped as a job's ports
 * are). Readiness is each server's own V1 readiness path, asked over loopback as kubelet's probe
 * would; predictions go to the replicas in turn, as a Service spreads them, passing over a
 * replica that does not answer or is not ready. The processes belong to the local
 * job (supervised, restarted Always, kept across JVM restarts); this handle holds nothing open.
 */
public final class LocalEndpoint implements Endpoint {
  private static final Logger LOG = LoggerFactory.getLogger(LocalEndpoint.class);
  private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration PREDICT_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration POLL = Duration.ofMillis(250);

  private final LocalTrainingJob job;
  private final String model;
  // The replica the next prediction goes to first; shared by the threads that use this handle.
  private final java.util.concurrent.atomic.AtomicInteger next =
      new java.util.concurrent.atomic.AtomicInteger();

  private LocalEndpoint(LocalTrainingJob job, String model) {
    KernelBridge.install();  // an endpoint handle is displayable: the first registers the renderer
    this.job = job;
    this.model = Objects.requireNonNull(model, "model");
  }

  /** The endpoint served by {@code job}, a local serving Deployment, answering to {@code model}. */
  public static Endpoint of(TrainingJob job, String model) {
    if (!(job instanceof LocalTrainingJob local)) {
      throw new IllegalArgumentException("not a job of this machine: " + job);
    }
    return new LocalEndpoint(local, model);
  }

  @Override
  public String name() {
    return job.name();
  }

  @Override
  public String namespace() {
    return job.namespace();
  }

  @Override
  public String kind() {
    return job.kind();
  }

  @Override
  public String modelName() {
    return model;
  }

  /** {@code http://127.0.0.1:<port of the first replica>/v1/models/<model>:predict}. */
  @Override
  public String url() {
    return url(ports());
  }

  private String url(Map<String, Integer> ports) {
    return ports.values().stream().findFirst().map(port -> base(port) + ":predict")
        .orElse("http://127.0.0.1/v1/models/" + model + ":predict");
  }

  @Override
  public EndpointStatus status() {
    JobStatus status = job.status();
    Map<String, Integer> ports = ports();
    int ready = 0;
    Optional<String> problem = Optional.empty();
    for (PodInfo pod : status.pods()) {
      Optional<Integer> port = Optional.ofNullable(ports.get(pod.name()));
      if (port.isEmpty() || !pod.phase().equals("Running")) {
        continue;
      }
      Answer answer = send("GET", base(port.get()), Optional.empty(), PROBE_TIMEOUT);
      if (answer.code() == 200) {
        ready++;
      } else if (problem.isEmpty()) {
        problem = JsonTree.text(JsonTree.parseObject(answer.body()), "error").map(error ->
            "the model " + model + " failed to load on " + pod.name() + ": " + error);
      }
    }
    if (problem.isEmpty()) {
      problem = status.pods().stream().filter(p -> p.reason().filter(r ->
          r.equals("CrashLoopBackOff")).isPresent()).findFirst().map(p -> "pod " + p.name()
          + " is CrashLoopBackOff" + p.message().map(m -> ": " + m).orElse("")
          + p.exitCode().map(c -> " (exit code " + c + ")").orElse(""));
    }
    if (problem.isEmpty() && status.isTerminal()) {
      problem = Optional.of(kind() + " " + name() + " is " + status.phase()
          + status.decidingCondition().map(c -> ": " + c.message()).orElse(""));
    }
    return new EndpointStatus(name(), namespace(), kind(), url(ports), replicas(status), ready,
        status.pods(), problem);
  }

  private static int replicas(JobStatus status) {
    return status.pods().size();
  }

  @Override
  public EndpointStatus waitUntilReady(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      EndpointStatus status = status();
      if (status.ready()) {
        LOG.info("{} is ready: {}/{} replicas at {}", this, status.readyReplicas(),
            status.replicas(), status.url());
        return status;
      }
      if (status.problem().isPresent()) {
        throw notReady(status);
      }
      if (System.nanoTime() - deadline >= 0) {
        throw new EndpointNotReadyException(status, timeout, status.readyReplicas() + " of "
            + status.replicas() + " replicas ready; pods: " + status.pods());
      }
      try {
        Thread.sleep(POLL.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new EndpointNotReadyException(status, timeout, "interrupted");
      }
    }
  }

  private EndpointNotReadyException notReady(EndpointStatus status) {
    String problem = status.problem().orElse("");
    String why = status.pods().stream().filter(p -> problem.contains(p.name())).findFirst()
        .map(pod -> PredictProtocol.withLastLines(problem, pod.name(), LastLines.of(
            job.logs().snapshot().stream().filter(l -> l.replica().equals(shortName(pod)))
                .map(LogLine::text).toList())))
        .orElse(problem);
    return new EndpointNotReadyException(status, why, problem.contains("failed to load")
        ? "fix the predictor's loading (its traceback is in endpoint.logs()), then serve again"
            + " with .replaceExisting()"
        : "read endpoint.logs(); fix, then serve again with .replaceExisting()");
  }

  private static String shortName(PodInfo pod) {
    return pod.replicaType().toLowerCase(java.util.Locale.ROOT) + "-" + pod.index();
  }

  @Override
  public String predict(String requestJson) {
    return post(PredictProtocol.requireObject(requestJson));
  }

  @Override
  public List<Object> predict(List<?> instances) {
    return PredictProtocol.predictions(post(PredictProtocol.request(instances)), subject(),
        url());
  }

  private String post(String body) {
    List<Integer> ports = List.copyOf(ports().values());
    Optional<Answer> last = Optional.empty();
    // Round robin, as a Service spreads requests; a replica that does not answer or is not
    // ready passes the request to the next one.
    int first = ports.isEmpty() ? 0 : Math.floorMod(next.getAndIncrement(), ports.size());
    for (int i = 0; i < ports.size(); i++) {
      int port = ports.get((first + i) % ports.size());
      Answer answer = send("POST", base(port) + ":predict", Optional.of(body), PREDICT_TIMEOUT);
      if (answer.code() == 200) {
        return answer.body();
      }
      last = Optional.of(answer);
      if (answer.code() != 0 && answer.code() != 503) {
        break;  // the model's own answer: another replica would say the same
      }
    }
    Answer failed = last.orElse(new Answer(0, "no replica has a port"));
    if (failed.code() == 0) {
      throw new PredictionException(subject(), "no replica answered (" + failed.body() + ")",
          "call endpoint.waitUntilReady(..) first, and read endpoint.status()", null);
    }
    String error = PredictProtocol.errorOf(failed.body());
    throw new PredictionException(subject(), failed.code(), error, failed.code() == 500
        ? "the predictor raised this; its traceback is in endpoint.logs()"
        : failed.code() == 503 ? "no replica is ready: call endpoint.waitUntilReady(..) first"
        : "read endpoint.logs()");
  }

  /** An HTTP answer; code 0 when nothing answered, with the reason as the body. */
  private record Answer(int code, String body) {}

  // HttpURLConnection rather than an HttpClient: no selector thread outlives the call.
  private static Answer send(String method, String url, Optional<String> body,
      Duration timeout) {
    HttpURLConnection connection = null;
    try {
      connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
      connection.setRequestMethod(method);
      connection.setConnectTimeout((int) PROBE_TIMEOUT.toMillis());
      connection.setReadTimeout((int) timeout.toMillis());
      connection.setRequestProperty("Accept", "application/json");
      if (body.isPresent()) {
        byte[] bytes = body.get().getBytes(StandardCharsets.UTF_8);
        connection.setDoOutput(true);
        connection.setRequestProperty("Content-Type", "application/json");
        connection.setFixedLengthStreamingMode(bytes.length);
        try (OutputStream out = connection.getOutputStream()) {
          out.write(bytes);
        }
      }
      int code = connection.getResponseCode();
      InputStream in = code >= 400 ? connection.getErrorStream() : connection.getInputStream();
      String text = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return new Answer(code, text);
    } catch (IOException e) {
      return new Answer(0, e.getClass().getSimpleName() + ": " + e.getMessage());
    } finally {
      if (connection != null) {
        connection.disconnect();
      }
    }
  }

  private String base(int port) {
    return "http://127.0.0.1:" + port + "/v1/models/" + model;
  }

  // The local port standing in for each replica's declared port, by pod name.
  private Map<String, Integer> ports() {
    Map<String, Integer> ports = new LinkedHashMap<>();
    job.store().read(job.jobDir()).map(JobRecord::ports).orElse(Map.of()).forEach((pod, map) ->
        map.values().stream().findFirst().ifPresent(port -> ports.put(pod, port)));
    return ports;
  }

  private String subject() {
    return namespace() + "/" + name();
  }

  @Override
  public JobLogs logs() {
    return job.logs();
  }

  /** Stops every replica's server and removes the endpoint's state, as a job's delete does. */
  @Override
  public void delete() {
    job.delete();
  }

  @Override
  public String toString() {
    return "endpoint " + kind() + " " + namespace() + "/" + name() + " (model " + model + ")";
  }
}
