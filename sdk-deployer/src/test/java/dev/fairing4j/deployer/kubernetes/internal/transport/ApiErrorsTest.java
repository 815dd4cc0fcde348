package dev.fairing4j.deployer.kubernetes.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.deployer.kubernetes.KubernetesApiException.Problem;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ApiErrorsTest {
  private static final ResourceRef PVS = ResourceRef.of("v1", "PersistentVolume");
  private static final ResourceRef JOBS = ResourceRef.of("kubeflow.org/v1", "TFJob");

  private static KubernetesApiException translate(Operation operation, int code, String body) {
    return ApiErrors.translate(operation, new KubeRest.Response(code, body),
        ns -> Optional.empty(), Redactor.of(Set.of("sekrit-token-123")));
  }

  @Test
  void aClusterScopedDenialAsksForAClusterRole() {
    KubernetesApiException e = translate(Operation.create(PVS, Optional.empty(), "pv-1"),
        403, "");
    assertThat(e.problem()).isEqualTo(Problem.FORBIDDEN);
    assertThat(e.getMessage()).contains("resource 'persistentvolumes' (cluster-wide)");
    assertThat(e.hint().orElseThrow()).contains("a ClusterRole").contains("apiGroups: [\"\"]")
        .contains("kubectl auth can-i create persistentvolumes'");
  }

  @Test
  void aRefusalByAdmissionIsNotExplainedAsAnRbacDenial() {
    KubernetesApiException e = translate(Operation.create(ResourceRef.of("v1", "Service"),
        Optional.of("team"), "svc"), 403, "{\"kind\":\"Status\",\"message\":\"services \\\"svc\\\""
            + " is forbidden: exceeded quota: q, requested: services=1, used: services=0,"
            + " limited: services=0\",\"reason\":\"Forbidden\",\"code\":403}");
    assertThat(e.problem()).isEqualTo(Problem.FORBIDDEN);
    assertThat(e.getMessage()).contains("not an RBAC denial").contains("exceeded quota: q")
        .doesNotContain("RBAC denies");
    assertThat(e.hint().orElseThrow()).contains("admission check").doesNotContain("Role");
  }

  @Test
  void aLogDenialNamesTheSubresource() {
    KubernetesApiException e = translate(Operation.on("get", ResourceRef.PODS,
        Optional.of("team"), "mnist-master-0").sub("log"), 403, "");
    assertThat(e.getMessage()).contains("resource 'pods/log'");
    assertThat(e.hint().orElseThrow()).contains("resources: [\"pods/log\"]")
        .contains("--subresource=log -n team");
  }

  @Test
  void rejectedCredentialsAndServerErrorsAreExplainedWithoutSecrets() {
    KubernetesApiException unauthorized = translate(Operation.create(JOBS,
        Optional.of("team"), "mnist"), 401,
        "{\"kind\":\"Status\",\"message\":\"token sekrit-token-123 expired\",\"code\":401}");
    assertThat(unauthorized.problem()).isEqualTo(Problem.UNAUTHORIZED);
    assertThat(unauthorized.what()).isEqualTo("create TFJob");
    assertThat(unauthorized.subject()).contains("team/mnist");
    assertThat(unauthorized.getMessage()).contains("rejected the credentials")
        .contains("token **** expired").doesNotContain("sekrit");

    KubernetesApiException broken = translate(Operation.onCollection("list", JOBS,
        Optional.of("team")), 503, "<html>Service Unavailable</html>");
    assertThat(broken.problem()).isEqualTo(Problem.OTHER);
    assertThat(broken.httpStatus()).contains(503);
    assertThat(broken.getMessage()).contains("HTTP 503").contains("Service Unavailable");
  }

  @Test
  void aMissingCrdOutsideKubeflowNamesTheResource() {
    KubernetesApiException e = translate(Operation.create(
        ResourceRef.of("kueue.x-k8s.io/v1beta1", "LocalQueue"), Optional.of("team"), "q"), 404,
        "{\"kind\":\"Status\",\"message\":\"the server could not find the requested resource\","
            + "\"details\":{},\"code\":404}");
    assertThat(e.problem()).isEqualTo(Problem.CRD_NOT_INSTALLED);
    assertThat(e.hint().orElseThrow()).contains("install the CRD that defines"
        + " localqueues.kueue.x-k8s.io");
  }

  @Test
  void aPlainTextNotFoundMeansTheKindIsNotServedNotThatTheObjectIsMissing() {
    // kube-apiserver's answer to a read of a kind whose CRD is not installed: no Status body.
    KubernetesApiException e = ApiErrors.translate(Operation.on("get", JOBS,
        Optional.of("team"), "mnist"), new KubeRest.Response(404, "404 page not found\n"),
        ns -> { throw new AssertionError("no need to ask about the namespace"); }, Redactor.NONE);
    assertThat(e.problem()).isEqualTo(Problem.CRD_NOT_INSTALLED);
    assertThat(e.getMessage()).contains("does not serve tfjobs.kubeflow.org");

    // Without any body (some proxies drop it) a read still means the object is missing.
    assertThat(translate(Operation.on("get", JOBS, Optional.of("team"), "mnist"), 404, "")
        .problem()).isEqualTo(Problem.NOT_FOUND);
  }

  @Test
  void pluralsAndPathsFollowTheApiConventions() {
    assertThat(JOBS.collectionPath(Optional.of("team")))
        .isEqualTo("/apis/kubeflow.org/v1/namespaces/team/tfjobs");
    assertThat(ResourceRef.of("v1", "Service").objectPath(Optional.of("team"), "svc"))
        .isEqualTo("/api/v1/namespaces/team/services/svc");
    assertThat(PVS.collectionPath(Optional.empty())).isEqualTo("/api/v1/persistentvolumes");
    assertThat(ResourceRef.of("example.com/v1", "Policy").plural()).isEqualTo("policies");
    assertThat(ResourceRef.of("example.com/v1", "Gateway").plural()).isEqualTo("gateways");
    assertThat(ResourceRef.of("example.com/v1", "Ingress").plural()).isEqualTo("ingresses");
  }

  @Test
  void theRedactorMasksKubeconfigSecretsBearerTokensAndUrlPasswords() {
    Redactor redactor = Redactor.ofKubeconfigUsers(List.of(Map.of(
        "name", "u", "user", Map.of("token", "abcdef123456",
            "exec", Map.of("command", "gke-gcloud-auth-plugin",
                "env", List.of(Map.of("name", "X", "value", "zyx987654")))))));
    assertThat(redactor.redact("t=abcdef123456 env zyx987654 via gke-gcloud-auth-plugin"))
        .isEqualTo("t=**** env **** via gke-gcloud-auth-plugin");
    assertThat(Redactor.NONE.redact("Authorization: Bearer eyJhbGciOi.x-y_z"))
        .isEqualTo("Authorization: Bearer ****");
    assertThat(Redactor.NONE.redact("https://admin:hunter22@k8s.example.com:6443/api"))
        .isEqualTo("https://admin:****@k8s.example.com:6443/api");
  }
}
