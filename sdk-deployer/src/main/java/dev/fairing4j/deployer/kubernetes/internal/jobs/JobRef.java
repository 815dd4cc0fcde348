package dev.fairing4j.deployer.kubernetes.internal.jobs;

import dev.fairing4j.deployer.kubernetes.internal.transport.ResourceRef;
import java.util.Objects;
import java.util.Optional;

/**
 * A training object on the cluster: its resource, namespace and name.
 *
 * @param resource the kind's resource, e.g. {@code pytorchjobs.kubeflow.org/v1}
 * @param namespace the namespace
 * @param name the job name
 */
public record JobRef(ResourceRef resource, String namespace, String name) {

  /** Checks the parts. */
  public JobRef {
    Objects.requireNonNull(resource, "resource");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(name, "name");
  }

  /** The kind, e.g. {@code PyTorchJob}. */
  public String kind() {
    return resource.kind();
  }

  /** The namespace as the request helpers take it. */
  public Optional<String> ns() {
    return Optional.of(namespace);
  }

  @Override
  public String toString() {
    return kind() + " " + namespace + "/" + name;
  }
}
