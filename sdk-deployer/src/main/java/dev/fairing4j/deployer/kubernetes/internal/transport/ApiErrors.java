package dev.fairing4j.deployer.kubernetes.internal.transport;

import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException.Problem;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Turns a failed API response into a {@link KubernetesApiException} that says what happened in the
 * user's terms and what to do: the name is taken, the Kubeflow operator is not installed, RBAC
 * denies the verb (with the Role rule that would allow it) or an admission check refuses, the
 * namespace does not exist.
 */
public final class ApiErrors {
  /** How to install the operator whose CRDs fairing4j submits (v1, the newest v1 release). */
  public static final String INSTALL_OPERATOR = "kubectl apply --server-side -k"
      + " \"github.com/kubeflow/trainer.git/manifests/overlays/standalone?ref=v1.9.4\"";

  /** How to install KServe (its CRDs, then the controller), the release fairing4j targets. */
  public static final String INSTALL_KSERVE = "helm install kserve-crd"
      + " oci://ghcr.io/kserve/charts/kserve-crd --version v0.19.0 && helm install kserve"
      + " oci://ghcr.io/kserve/charts/kserve --version v0.19.0";

  /**
   * How to install Kubeflow Trainer v2 (its CRDs, controller, webhook and JobSet) and its
   * runtimes, the release fairing4j targets.
   */
  public static final String INSTALL_TRAINER = "kubectl apply --server-side -k"
      + " \"github.com/kubeflow/trainer.git/manifests/overlays/manager?ref=v2.3.0\" && kubectl"
      + " apply --server-side -k"
      + " \"github.com/kubeflow/trainer.git/manifests/overlays/runtimes?ref=v2.3.0\"";

  /** How to install Katib, the release fairing4j renders Experiments for. */
  public static final String INSTALL_KATIB = "kubectl apply -k"
      + " \"github.com/kubeflow/katib.git/manifests/v1beta1/installs/katib-standalone"
      + "?ref=v0.19.0\"";

  // Katib's kinds share the training operator's group.
  private static final Set<String> KATIB_KINDS = Set.of("Experiment",
      "Trial", "Suggestion");

  private static final Pattern RBAC_DENIAL = Pattern.compile("cannot \\S+ resource \"");

  private ApiErrors() {}

  /**
   * The exception for {@code response} to {@code operation}. {@code namespaceExists} answers,
   * when a 404 body does not say what is missing (empty Optional: could not tell).
   */
  public static KubernetesApiException translate(Operation operation, KubeRest.Response response,
      Function<String, Optional<Boolean>> namespaceExists, Redactor redactor) {
    Map<String, Object> status = response.json();
    String serverMessage = serverMessage(operation, status, response, redactor);
    if (!response.retries().isEmpty()) {
      serverMessage = serverMessage + (serverMessage.isBlank() ? "" : "; ") + "still so after "
          + response.retries();
    }
    int code = response.code();
    return switch (code) {
      case 401 -> new KubernetesApiException(Problem.UNAUTHORIZED, operation.what(),
          operation.subject(), "the API server rejected the credentials (HTTP 401)"
              + suffix(serverMessage),
          "refresh the credentials of this context (e.g. re-run your cloud's get-credentials"
              + " command); 'kubectl get ns' shows the same error", code, null);
      case 403 -> forbidden(operation, serverMessage, code);
      case 404 -> notFound(operation, status, response, serverMessage, namespaceExists);
      case 409 -> new KubernetesApiException(Problem.ALREADY_EXISTS, operation.what(),
          operation.subject(), describe(operation) + " already exists" + suffix(serverMessage),
          "delete it first: kubectl delete " + operation.resource().kubectlName() + " "
              + operation.name().orElse("NAME")
              + operation.namespace().map(n -> " -n " + n).orElse(""), code, null);
      case 400, 422 -> new KubernetesApiException(Problem.INVALID, operation.what(),
          operation.subject(), "the API server rejected the request as invalid (HTTP " + code
              + ")" + suffix(serverMessage),
          "fix the fields named above", code, null);
      default -> new KubernetesApiException(Problem.OTHER, operation.what(), operation.subject(),
          "HTTP " + code + suffix(serverMessage),
          code >= 500 ? "the API server had a problem; try again, or check it with"
              + " 'kubectl get --raw /readyz?verbose'" : "see the server's message above",
          code, null);
    };
  }

  /** The error for a name that is taken, with a hint chosen by the caller. */
  public static KubernetesApiException alreadyExists(Operation operation, String hint) {
    return new KubernetesApiException(Problem.ALREADY_EXISTS, operation.what(),
        operation.subject(), describe(operation) + " already exists", hint, 409, null);
  }

  private static KubernetesApiException forbidden(Operation operation, String serverMessage,
      int code) {
    // Admission (a ResourceQuota, the claim-resize check, Pod Security, a policy or webhook, a
    // namespace being deleted) answers 403 too; only RBAC says "cannot <verb> resource".
    if (!serverMessage.isBlank() && !RBAC_DENIAL.matcher(serverMessage).find()) {
      return new KubernetesApiException(Problem.FORBIDDEN, operation.what(), operation.subject(),
          "the API server refused it (HTTP 403, not an RBAC denial)" + suffix(serverMessage),
          "an admission check refused the request (a ResourceQuota, a policy, Pod Security, a"
              + " namespace being deleted, ...): the server's message says which; more"
              + " permissions do not help", code, null);
    }
    ResourceRef resource = operation.resource();
    String resourceName = resource.plural() + operation.subresource().map(s -> "/" + s)
        .orElse("");
    boolean namespaced = resource.namespaced() && operation.namespace().isPresent();
    String where = namespaced ? " in namespace " + operation.namespace().get()
        : " (cluster-wide)";
    String rule = "  - apiGroups: [\"" + resource.group() + "\"]\n"
        + "    resources: [\"" + resourceName + "\"]\n"
        + "    verbs: [\"" + operation.verb() + "\"]";
    String role = namespaced ? "a Role in namespace " + operation.namespace().get()
        : "a ClusterRole";
    String check = "kubectl auth can-i " + operation.verb() + " " + resource.qualifiedName()
        + operation.subresource().map(s -> " --subresource=" + s).orElse("")
        + operation.namespace().filter(n -> namespaced).map(n -> " -n " + n).orElse("");
    return new KubernetesApiException(Problem.FORBIDDEN, operation.what(), operation.subject(),
        "RBAC denies verb '" + operation.verb() + "' on resource '" + resource.qualifiedName()
            + operation.subresource().map(s -> "/" + s).orElse("") + "'" + where
            + suffix(serverMessage),
        "ask a cluster admin for " + role + " with this rule, bound to your user or service"
            + " account:\n" + rule + "\n  check with '" + check + "'",
        code, null);
  }

  private static KubernetesApiException notFound(Operation operation, Map<String, Object> status,
      KubeRest.Response response, String serverMessage,
      Function<String, Optional<Boolean>> namespaceExists) {
    Optional<String> namespace = operation.namespace();
    if (namespace.isPresent() && saysNamespaceMissing(status, namespace.get())) {
      return namespaceMissing(operation, namespace.get(), serverMessage);
    }
    // kube-apiserver answers a path it does not serve (a kind whose CRD is missing) with the text
    // "404 page not found", not a Status: only a Status naming the object, or no body at all (some
    // proxies drop it), may mean that the object is missing.
    boolean bodyless = response.body().isBlank();
    boolean objectMissing = !operation.collection()
        && (JsonTree.text(status, "details", "name").isPresent() || bodyless);
    if (objectMissing) {
      return new KubernetesApiException(Problem.NOT_FOUND, operation.what(), operation.subject(),
          describe(operation) + " does not exist" + suffix(serverMessage),
          "check the name and namespace with 'kubectl get " + operation.resource().kubectlName()
              + namespace.map(n -> " -n " + n).orElse("") + "'", 404, null);
    }
    // The body does not say what is missing (some servers and proxies send none): ask.
    if (bodyless && namespace.isPresent()
        && namespaceExists.apply(namespace.get()).equals(Optional.of(false))) {
      return namespaceMissing(operation, namespace.get(), serverMessage);
    }
    ResourceRef resource = operation.resource();
    if (resource.isCore()) {
      return new KubernetesApiException(Problem.NOT_FOUND, operation.what(), operation.subject(),
          "not found (HTTP 404)" + suffix(serverMessage),
          "check the namespace and the API server URL of this context", 404, null);
    }
    boolean katib = ResourceRef.KUBEFLOW_GROUP.equals(resource.group())
        && KATIB_KINDS.contains(resource.kind());
    boolean kubeflow = ResourceRef.KUBEFLOW_GROUP.equals(resource.group()) && !katib;
    boolean optimization = ResourceRef.TRAINER_GROUP.equals(resource.group())
        && resource.kind().equals("OptimizationJob");
    boolean trainer = ResourceRef.TRAINER_GROUP.equals(resource.group()) && !optimization;
    boolean kserve = ResourceRef.KSERVE_GROUP.equals(resource.group());
    String message = "the API server does not serve " + resource.qualifiedName() + " (version "
        + resource.version() + "): the " + resource.kind() + " CRD is not installed"
        + (kubeflow ? " (the Kubeflow training operator is missing)"
            : katib ? " (Katib is missing)"
            : optimization ? " (a Kubeflow Trainer newer than v2.3 is missing)"
            : trainer ? " (Kubeflow Trainer v2 is missing)"
            : kserve ? " (KServe is missing)" : "");
    String check = "check with 'kubectl get crd " + resource.qualifiedName() + "'";
    String hint = kubeflow
        ? "install the Kubeflow training operator: " + INSTALL_OPERATOR + "; " + check
        : katib ? "install Katib: " + INSTALL_KATIB + "; " + check + ", or run the trials"
            + " from this JVM with backend(TuningBackend.CLIENT), which needs no Katib"
        : optimization ? "install a Kubeflow Trainer that serves OptimizationJob (its main"
            + " branch after v2.3); " + check + ", or use backend(TuningBackend.KATIB) or"
            + " CLIENT"
        : trainer ? "install Kubeflow Trainer v2 and its runtimes: " + INSTALL_TRAINER + "; "
            + check
        : kserve ? "install KServe: " + INSTALL_KSERVE + "; " + check
            + ", or serve without KServe with Deployers.serving(..)"
        : "install the CRD that defines " + resource.qualifiedName() + "; " + check;
    return new KubernetesApiException(Problem.CRD_NOT_INSTALLED, operation.what(),
        operation.subject(), message, hint, 404, null);
  }

  /** {@code namespace} does not exist, for {@code operation}; with the server's words if any. */
  static KubernetesApiException namespaceMissing(Operation operation, String namespace,
      String serverMessage) {
    return new KubernetesApiException(Problem.NAMESPACE_NOT_FOUND, operation.what(),
        operation.subject(), "namespace '" + namespace + "' does not exist" + suffix(serverMessage),
        "create it with 'kubectl create namespace " + namespace
            + "', or choose another with .namespace(..)", 404, null);
  }

  private static boolean saysNamespaceMissing(Map<String, Object> status, String namespace) {
    if (JsonTree.string(status, "details", "kind").filter("namespaces"::equals).isPresent()) {
      return true;
    }
    return JsonTree.string(status, "message")
        .filter(m -> m.contains("namespaces \"" + namespace + "\" not found")).isPresent();
  }

  private static String serverMessage(Operation operation, Map<String, Object> status,
      KubeRest.Response response, Redactor redactor) {
    String message = JsonTree.text(status, "message").orElse("");
    List<Map<String, Object>> causes = JsonTree.maps(status, "details", "causes");
    String causeText = causes.stream()
        .map(c -> JsonTree.string(c, "field").map(f -> f + ": ").orElse("")
            + JsonTree.string(c, "message").orElse(""))
        .filter(s -> !s.isBlank() && !message.contains(s))
        .collect(Collectors.joining("; "));
    String text = message + (causeText.isEmpty() ? "" : (message.isEmpty() ? "" : "; ")
        + causeText);
    if (text.isBlank() && status.isEmpty() && !response.body().isBlank()) {
      text = abbreviate(response.body().strip());
    }
    if ("Secret".equals(operation.resource().kind())) {
      // Validation errors quote the rejected value; for a Secret that is the secret itself.
      text = text.replaceAll("Invalid value: \"(?:[^\"\\\\]|\\\\.)*\"", "Invalid value: ****");
    }
    return redactor.redact(text);
  }

  private static String describe(Operation operation) {
    return operation.resource().kind() + operation.name().map(n -> " " + n).orElse("")
        + operation.namespace().map(n -> " in namespace " + n).orElse("");
  }

  private static String suffix(String serverMessage) {
    return serverMessage.isBlank() ? "" : " (server: " + serverMessage + ")";
  }

  private static String abbreviate(String text) {
    return text.length() <= 300 ? text : text.substring(0, 297) + "...";
  }
}
