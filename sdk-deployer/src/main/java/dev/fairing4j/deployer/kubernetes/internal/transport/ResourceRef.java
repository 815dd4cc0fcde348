package dev.fairing4j.deployer.kubernetes.internal.transport;

import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a kind lives on the API server: group, version, plural and whether it is namespaced, so a
 * request path can be built without a discovery round trip. The kinds fairing4j creates are listed;
 * any other kind falls back to the English plural of its lower-cased name, which is what
 * {@code kubectl} would find for nearly every CRD.
 *
 * @param group the API group, empty for the core group
 * @param version the API version, e.g. {@code v1}
 * @param kind the kind, e.g. {@code PyTorchJob}
 * @param plural the resource name in URLs, e.g. {@code pytorchjobs}
 * @param namespaced whether objects of this kind live in a namespace
 */
public record ResourceRef(String group, String version, String kind, String plural,
    boolean namespaced) {

  /** The Kubeflow training operator's API group. */
  public static final String KUBEFLOW_GROUP = "kubeflow.org";
  /** Kubeflow Trainer v2's API group. */
  public static final String TRAINER_GROUP = "trainer.kubeflow.org";
  /** KServe's API group. */
  public static final String KSERVE_GROUP = "serving.kserve.io";

  private static final Map<String, String> PLURALS = Map.ofEntries(
      Map.entry("PyTorchJob", "pytorchjobs"), Map.entry("TFJob", "tfjobs"),
      Map.entry("MPIJob", "mpijobs"), Map.entry("XGBoostJob", "xgboostjobs"),
      Map.entry("JAXJob", "jaxjobs"), Map.entry("PaddleJob", "paddlejobs"),
      Map.entry("Job", "jobs"), Map.entry("Service", "services"), Map.entry("Secret", "secrets"),
      Map.entry("ConfigMap", "configmaps"), Map.entry("Pod", "pods"),
      Map.entry("PersistentVolumeClaim", "persistentvolumeclaims"),
      Map.entry("PersistentVolume", "persistentvolumes"), Map.entry("Namespace", "namespaces"),
      Map.entry("ServiceAccount", "serviceaccounts"), Map.entry("Event", "events"),
      Map.entry("Deployment", "deployments"), Map.entry("Node", "nodes"),
      Map.entry("InferenceService", "inferenceservices"),
      Map.entry("Role", "roles"), Map.entry("RoleBinding", "rolebindings"),
      Map.entry("ClusterRole", "clusterroles"),
      Map.entry("ClusterRoleBinding", "clusterrolebindings"),
      Map.entry("PriorityClass", "priorityclasses"), Map.entry("StorageClass", "storageclasses"),
      Map.entry("TrainJob", "trainjobs"), Map.entry("TrainingRuntime", "trainingruntimes"),
      Map.entry("ClusterTrainingRuntime", "clustertrainingruntimes"),
      Map.entry("JobSet", "jobsets"),
      Map.entry("CustomResourceDefinition", "customresourcedefinitions"));

  private static final java.util.Set<String> CLUSTER_SCOPED = java.util.Set.of(
      "PersistentVolume", "Namespace", "Node", "ClusterRole", "ClusterRoleBinding",
      "PriorityClass", "StorageClass", "CustomResourceDefinition", "ClusterTrainingRuntime");

  /** Pods, in the core group. */
  public static final ResourceRef PODS = of("v1", "Pod");
  /** Events, in the core group. */
  public static final ResourceRef EVENTS = of("v1", "Event");
  /** Namespaces, in the core group. */
  public static final ResourceRef NAMESPACES = of("v1", "Namespace");

  /** Checks the parts. */
  public ResourceRef {
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(version, "version");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(plural, "plural");
  }

  /** The resource for {@code apiVersion} (e.g. {@code kubeflow.org/v1} or {@code v1}) and kind. */
  public static ResourceRef of(String apiVersion, String kind) {
    int slash = apiVersion.indexOf('/');
    String group = slash < 0 ? "" : apiVersion.substring(0, slash);
    String version = slash < 0 ? apiVersion : apiVersion.substring(slash + 1);
    String plural = PLURALS.getOrDefault(kind, guessPlural(kind));
    return new ResourceRef(group, version, kind, plural, !CLUSTER_SCOPED.contains(kind));
  }

  /** The {@code apiVersion} string, e.g. {@code kubeflow.org/v1}. */
  public String apiVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  /** True for the core group ({@code /api/v1}). */
  public boolean isCore() {
    return group.isEmpty();
  }

  /** The collection path: {@code /apis/<group>/<version>[/namespaces/<ns>]/<plural>}. */
  public String collectionPath(Optional<String> namespace) {
    String base = isCore() ? "/api/" + version : "/apis/" + group + "/" + version;
    if (namespaced) {
      String ns = namespace.orElseThrow(
          () -> new IllegalArgumentException(kind + " is namespaced: a namespace is needed"));
      return base + "/namespaces/" + ns + "/" + plural;
    }
    return base + "/" + plural;
  }

  /** The path of one object. */
  public String objectPath(Optional<String> namespace, String name) {
    return collectionPath(namespace) + "/" + name;
  }

  /**
   * The name RBAC and {@code kubectl} use: {@code pytorchjobs.kubeflow.org}, or just
   * {@code services} in the core group.
   */
  public String qualifiedName() {
    return isCore() ? plural : plural + "." + group;
  }

  /** The kind in lower case, as kubectl commands spell it. */
  public String kubectlName() {
    return kind.toLowerCase(Locale.ROOT);
  }

  private static String guessPlural(String kind) {
    String lower = kind.toLowerCase(Locale.ROOT);
    if (lower.endsWith("s") || lower.endsWith("x") || lower.endsWith("ch")
        || lower.endsWith("sh")) {
      return lower + "es";
    }
    if (lower.endsWith("y") && lower.length() > 1 && "aeiou".indexOf(lower.charAt(
        lower.length() - 2)) < 0) {
      return lower.substring(0, lower.length() - 1) + "ies";
    }
    return lower + "s";
  }

  @Override
  public String toString() {
    return qualifiedName() + "/" + version;
  }
}
