package dev.fairing4j.deployer.kubernetes.internal.transport;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What a user chose for a Kubernetes cluster; everything unset is looked up as kubectl would.
 *
 * @param context the kubeconfig context; the current context when empty
 * @param namespace the default namespace; the context's (or the service account's) when empty
 * @param kubeconfigs kubeconfig files to merge; {@code KUBECONFIG}, then {@code ~/.kube/config},
 *     then in-cluster when empty
 */
public record ClusterSettings(Optional<String> context, Optional<String> namespace,
    List<Path> kubeconfigs) {

  /** Nothing chosen: kubectl's defaults. */
  public static final ClusterSettings DEFAULT =
      new ClusterSettings(Optional.empty(), Optional.empty(), List.of());

  /** Copies the list. */
  public ClusterSettings {
    context = context == null ? Optional.empty() : context;
    namespace = namespace == null ? Optional.empty() : namespace;
    kubeconfigs = List.copyOf(kubeconfigs);
  }
}
