package dev.fairing4j.deployer.kubernetes.internal.transport;

import java.util.Objects;
import java.util.Optional;

/**
 * One API request in the terms RBAC and error messages use: the verb, the resource, the namespace
 * and (for single-object requests) the name.
 *
 * @param verb the RBAC verb: get, list, create, patch, delete
 * @param resource the resource
 * @param subresource a subresource such as {@code log} or {@code status}; empty for none
 * @param namespace the namespace; empty for cluster-scoped resources
 * @param name the object's name, when the request concerns one (a create names the object it
 *     sends); empty for lists
 * @param collection whether the request goes to the collection URL (create, list) rather than
 *     the object's
 */
public record Operation(String verb, ResourceRef resource, Optional<String> subresource,
    Optional<String> namespace, Optional<String> name, boolean collection) {

  /** Checks the parts. */
  public Operation {
    Objects.requireNonNull(verb, "verb");
    Objects.requireNonNull(resource, "resource");
    subresource = subresource == null ? Optional.empty() : subresource;
    namespace = namespace == null ? Optional.empty() : namespace;
    name = name == null ? Optional.empty() : name;
  }

  /** A request on one object. */
  public static Operation on(String verb, ResourceRef resource, Optional<String> namespace,
      String name) {
    return new Operation(verb, resource, Optional.empty(), namespace, Optional.of(name), false);
  }

  /** Creating the object {@code name}: sent to the collection. */
  public static Operation create(ResourceRef resource, Optional<String> namespace, String name) {
    return new Operation("create", resource, Optional.empty(), namespace, Optional.of(name),
        true);
  }

  /** A request on a whole collection (list). */
  public static Operation onCollection(String verb, ResourceRef resource,
      Optional<String> namespace) {
    return new Operation(verb, resource, Optional.empty(), namespace, Optional.empty(), true);
  }

  /** The same request on a subresource, e.g. {@code pods/log}. */
  public Operation sub(String subresourceName) {
    return new Operation(verb, resource, Optional.of(subresourceName), namespace, name,
        collection);
  }

  /** The request path, e.g. {@code /api/v1/namespaces/team/pods/mnist-master-0/log}. */
  public String path() {
    String base = collection || name.isEmpty() ? resource.collectionPath(namespace)
        : resource.objectPath(namespace, name.get());
    return base + subresource.map(s -> "/" + s).orElse("");
  }

  /** What failed, for an exception: {@code "create PyTorchJob"}. */
  public String what() {
    return verb + " " + resource.kind() + subresource.map(s -> " " + s).orElse("");
  }

  /** The object, for an exception: {@code "kubeflow/mnist"}, or the namespace for collections. */
  public String subject() {
    String ns = namespace.map(n -> n + "/").orElse("");
    return name.map(n -> ns + n).orElse(namespace.map(n -> "namespace " + n).orElse(""));
  }
}
