package dev.fairing4j.deployer.kubernetes.internal.transport;

import io.kubernetes.client.openapi.ApiClient;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A resolved cluster configuration: where the API server is, which context and namespace apply,
 * and how to build a client for it. Resolving reads files only; the client (and any exec
 * credential plugin) is created on first use.
 *
 * @param source where the configuration came from, e.g. {@code kubeconfig /home/u/.kube/config}
 * @param context the kubeconfig context; empty in-cluster
 * @param server the API server URL
 * @param namespace the default namespace
 * @param redactor masks the credentials this configuration holds
 * @param clients builds an API client; throws {@link dev.fairing4j.core.InvalidInputException}
 *     for unusable credentials
 */
public record ClusterConfig(String source, Optional<String> context, String server,
    String namespace, Redactor redactor, Supplier<ApiClient> clients) {

  /** Checks the parts. */
  public ClusterConfig {
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(context, "context");
    Objects.requireNonNull(server, "server");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(redactor, "redactor");
    Objects.requireNonNull(clients, "clients");
  }

  @Override
  public String toString() {
    return "cluster " + server + context.map(c -> " context=" + c).orElse("") + " namespace="
        + namespace + " (" + source + ")";
  }
}
