package dev.fairing4j.deployer.kubernetes.internal.transport;

import dev.fairing4j.deployer.job.internal.CustomObjects;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/** {@link CustomObjects} through a cluster's {@link KubeRest}. */
public final class KubernetesObjects implements CustomObjects {
  // A selector no object carries: a list that proves the resource is served, reading nothing.
  private static final String NOTHING = "fairing4j.dev/probe=none";

  private final Supplier<KubeRest> rest;

  /** Objects through the connection {@code rest} gives, opened on first use. */
  public KubernetesObjects(Supplier<KubeRest> rest) {
    this.rest = rest;
  }

  @Override
  public Map<String, Object> create(Map<String, Object> object) {
    String apiVersion = JsonTree.string(object, "apiVersion").orElseThrow();
    String kind = JsonTree.string(object, "kind").orElseThrow();
    return rest.get().create(ResourceRef.of(apiVersion, kind),
        JsonTree.string(object, "metadata", "namespace"), object, true);
  }

  @Override
  public void requireServed(String apiVersion, String kind, String namespace) {
    probe(apiVersion, kind, namespace);
    // A list in a namespace that does not exist is empty, not refused: ask, before a build.
    if (rest.get().namespaceExists(namespace).equals(Optional.of(false))) {
      throw ApiErrors.namespaceMissing(Operation.onCollection("list", ResourceRef.of(apiVersion,
          kind), Optional.of(namespace)), namespace, "");
    }
  }

  private void probe(String apiVersion, String kind, String namespace) {
    rest.get().list(ResourceRef.of(apiVersion, kind), Optional.of(namespace),
        Optional.of(NOTHING), Optional.empty());
  }

  @Override
  public boolean serves(String apiVersion, String kind, String namespace) {
    try {
      probe(apiVersion, kind, namespace);
      return true;
    } catch (KubernetesApiException e) {
      if (e.problem() == KubernetesApiException.Problem.CRD_NOT_INSTALLED) {
        return false;
      }
      throw e;
    }
  }

  @Override
  public Optional<Map<String, Object>> get(String apiVersion, String kind, String namespace,
      String name) {
    return rest.get().find(ResourceRef.of(apiVersion, kind), Optional.of(namespace), name);
  }

  @Override
  public List<Map<String, Object>> list(String apiVersion, String kind, String namespace,
      String labelSelector) {
    return rest.get().list(ResourceRef.of(apiVersion, kind), Optional.of(namespace),
        Optional.of(labelSelector).filter(selector -> !selector.isBlank()), Optional.empty());
  }

  @Override
  public boolean delete(String apiVersion, String kind, String namespace, String name) {
    return rest.get().delete(ResourceRef.of(apiVersion, kind), Optional.of(namespace), name,
        "Background");
  }
}
