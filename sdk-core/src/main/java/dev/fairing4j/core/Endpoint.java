package dev.fairing4j.core;

import java.time.Duration;
import java.util.List;

/**
 * A handle on a served model, wherever it runs (a Deployment and Service on Kubernetes, a process
 * on this machine): wait until it is ready, send it predictions in KServe's V1 protocol, read its
 * status and logs, delete it. Like a {@link TrainingJob}, a handle holds no open connection
 * between calls, so it can be kept in a notebook variable for hours; a cell ending with one shows
 * its status table.
 */
public interface Endpoint extends Displayable {
  /** The endpoint's name (the Deployment's and the Service's). */
  String name();

  /** The namespace it runs in. */
  String namespace();

  /** What serves it: {@code Deployment} (with a Service) or {@code InferenceService}. */
  String kind();

  /** The model name in the V1 paths: {@code /v1/models/<modelName>:predict}. */
  String modelName();

  /**
   * The predict URL as the endpoint's own network reaches it: cluster-internal on Kubernetes
   * ({@code http://<name>.<namespace>.svc.cluster.local/v1/models/<model>:predict}), loopback
   * on this machine. {@link #predict(String)} reaches it from the caller's machine whatever
   * this URL is (on Kubernetes through the API server's service proxy).
   */
  String url();

  /** Reads the current status: replicas, readiness, and why a pod is not ready. */
  EndpointStatus status();

  /**
   * Blocks until every replica is ready to answer (the model loaded), returning that status.
   *
   * @throws EndpointNotReadyException at once when a replica cannot become ready without a fix
   *     (an image that does not pull, a crashing server, a model that failed to load), with the
   *     reason and the server's last log lines; or when {@code timeout} passes first
   */
  EndpointStatus waitUntilReady(Duration timeout);

  /**
   * Sends a V1 predict request ({@code {"instances": [...]}}) as JSON text and returns the
   * answer's JSON text ({@code {"predictions": [...]}}).
   *
   * @throws PredictionException when the server answers with an error (the model's exception
   *     message for a 500), or cannot be reached
   * @throws InvalidInputException when {@code requestJson} is not a JSON object
   */
  String predict(String requestJson);

  /**
   * Sends {@code instances} (numbers, strings, lists of them, maps) as a V1 predict request and
   * returns the predictions, as Jackson reads JSON: numbers, strings, lists and maps.
   *
   * @throws PredictionException as {@link #predict(String)}
   */
  List<Object> predict(List<?> instances);

  /** The model server's logs, one replica per pod. */
  JobLogs logs();

  /** Deletes the endpoint and everything it owns; returns when they are gone. */
  void delete();

  /** The status as a text table; reads the status. */
  @Override
  default String toText() {
    return status().toTable();
  }

  /** The status as an HTML table; reads the status. */
  @Override
  default String toHtml() {
    return status().toHtml();
  }
}
