package dev.fairing4j.deployer.monitor;

import dev.fairing4j.core.Displayable;
import dev.fairing4j.core.EndpointStatus;
import dev.fairing4j.core.internal.KernelBridge;
import dev.fairing4j.core.internal.TextTable;
import java.util.List;
import java.util.Objects;

/**
 * The endpoints of a namespace as {@code TrainingClient.endpoints()} lists them: name, kind,
 * phase, ready replicas and the predict URL, one row each. A notebook cell ending with one shows
 * the table.
 *
 * @param endpoints the endpoints' statuses, by name
 * @param namespace the namespace they were listed in
 */
public record EndpointList(List<EndpointStatus> endpoints, String namespace)
    implements Displayable {
  private static final List<String> HEADERS = List.of("NAME", "KIND", "PHASE", "READY", "URL");

  /** Copies the list. */
  public EndpointList {
    KernelBridge.install();  // the first displayable value registers the renderer
    endpoints = List.copyOf(endpoints);
    Objects.requireNonNull(namespace, "namespace");
  }

  private List<List<String>> rows() {
    return endpoints.stream().map(e -> List.of(e.name(), e.kind(), e.phase(),
        e.readyReplicas() + "/" + e.replicas(), e.url())).toList();
  }

  private String scope() {
    return (endpoints.isEmpty() ? "no endpoints in namespace " : "namespace ") + namespace
        + " (another: client.inNamespace(\"..\").endpoints())";
  }

  /** The table as HTML, for notebooks. */
  @Override
  public String toHtml() {
    String caption = "<p>" + TextTable.escape(scope()) + "</p>";
    return endpoints.isEmpty() ? caption : TextTable.html(HEADERS, rows()) + caption;
  }

  /** The same as {@code toString()}. */
  @Override
  public String toText() {
    return toString();
  }

  @Override
  public String toString() {
    return endpoints.isEmpty() ? scope() : TextTable.text(HEADERS, rows()) + "\n" + scope();
  }
}
