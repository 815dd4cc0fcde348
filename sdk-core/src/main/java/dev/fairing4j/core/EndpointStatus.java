package dev.fairing4j.core;

import dev.fairing4j.core.internal.KernelBridge;
import dev.fairing4j.core.internal.TextTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What an {@link Endpoint} is doing now: how many replicas are wanted and ready, its pods, and
 * when it is not ready, why (a pod's waiting reason, the model server's load error).
 *
 * @param name the endpoint's name
 * @param namespace its namespace
 * @param kind {@code Deployment} or {@code InferenceService}
 * @param url the predict URL ({@link Endpoint#url()})
 * @param replicas the replicas wanted
 * @param readyReplicas the replicas that answer their readiness path
 * @param pods the serving pods, with their phase and diagnosis
 * @param problem why the endpoint is not ready, when something other than starting up holds it
 */
public record EndpointStatus(String name, String namespace, String kind, String url,
    int replicas, int readyReplicas, List<PodInfo> pods, Optional<String> problem)
    implements Displayable {

  /** Copies the pods. */
  public EndpointStatus {
    KernelBridge.install();  // the first displayable value registers the renderer
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(url, "url");
    pods = List.copyOf(pods);
    problem = problem == null ? Optional.empty() : problem;
  }

  /** True when every wanted replica (at least one) is ready. */
  public boolean ready() {
    return replicas > 0 && readyReplicas >= replicas;
  }

  /** {@code Ready}, {@code NotReady} or, with a problem, {@code Failing}. */
  public String phase() {
    return ready() ? "Ready" : problem.isPresent() ? "Failing" : "NotReady";
  }

  /** The status as a text table: the endpoint, then one row per pod. */
  public String toTable() {
    return TextTable.text(header(), rows()) + problem.map(p -> "\n" + p).orElse("");
  }

  /** The same as {@link #toTable()}. */
  @Override
  public String toText() {
    return toTable();
  }

  /** The same tables as HTML, for notebooks. */
  @Override
  public String toHtml() {
    return TextTable.html(header(), rows())
        + problem.map(p -> "<p>" + TextTable.escape(p) + "</p>").orElse("");
  }

  private static List<String> header() {
    return List.of("ENDPOINT", "PHASE", "READY", "POD / URL", "STATUS");
  }

  private List<List<String>> rows() {
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of(kind + " " + namespace + "/" + name, phase(),
        readyReplicas + "/" + replicas, url, ""));
    for (PodInfo pod : pods) {
      rows.add(List.of("", "", "", pod.name(), pod.phase() + pod.reason().map(r -> " (" + r
          + pod.message().map(m -> ": " + m).orElse("") + ")").orElse("")
          + (pod.restarts() > 0 ? ", " + pod.restarts() + " restarts" : "")));
    }
    return rows;
  }

  @Override
  public String toString() {
    return kind + " " + namespace + "/" + name + " " + phase() + " " + readyReplicas + "/"
        + replicas + problem.map(p -> ": " + p).orElse("");
  }
}
