package dev.fairing4j.deployer.kubernetes;

import static dev.fairing4j.deployer.kubernetes.PullSecretTest.CREDENTIALS;
import static dev.fairing4j.deployer.kubernetes.PullSecretTest.PASSWORD;
import static dev.fairing4j.deployer.kubernetes.PullSecretTest.assertNoSecretIn;
import static dev.fairing4j.deployer.kubernetes.PullSecretTest.podTemplates;
import static dev.fairing4j.deployer.kubernetes.PullSecretTest.registryEntry;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.KubeApiServer.Response;
import dev.fairing4j.core.testing.KubeApiServer.User;
import dev.fairing4j.core.testing.RealKubernetes;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Fixtures;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The image-pull Secret on a real API server: created before the job with credentials the
 * kubelet can decode, owned by the job (so the garbage collector deletes it with the job), and
 * never quoted back when the server refuses it.
 */
class PullSecretIT {
  @RegisterExtension
  static final RealKubernetes K8S = RealKubernetes.shared().withControllers();

  private final RealApiObjects api = new RealApiObjects(K8S);

  @Test
  void deployCreatesTheSecretFirstWithDecodableCredentialsAndTheJobReferencesIt() {
    String ns = api.ns();
    PrintStream originalErr = System.err;
    ByteArrayOutputStream logs = new ByteArrayOutputStream();
    System.setErr(new PrintStream(logs, true, StandardCharsets.UTF_8));
    TrainingJob job;
    try {
      job = Deployers.pyTorchJob("mnist").workers(1).on(api.cluster())
          .pullCredentials(CREDENTIALS)
          .asDeployer().deploy(Fixtures.context(), Optional.of(Fixtures.image()),
              ProgressListener.NONE);
    } finally {
      System.setErr(originalErr);
    }

    assertThat(K8S.requestLines()).containsSubsequence(
        "create " + api.core("secrets"), "create " + api.jobs());
    String secretPath = api.core("secrets") + "/mnist-registry";
    Map<String, Object> secret = api.get(secretPath);
    assertThat(secret).containsEntry("type", "kubernetes.io/dockerconfigjson");
    Map<String, Object> auth = registryEntry(Fixtures.at(secret, "data", ".dockerconfigjson"));
    assertThat(auth).containsEntry("username", "alice").containsEntry("password", PASSWORD);
    assertThat(new String(Base64.getDecoder().decode((String) auth.get("auth")),
        StandardCharsets.UTF_8)).isEqualTo("alice:" + PASSWORD);
    // Owned by the job, so deleting the job deletes the credentials too.
    assertThat(Fixtures.<List<Map<String, Object>>>at(secret, "metadata", "ownerReferences"))
        .singleElement().satisfies(owner -> assertThat(owner)
            .containsEntry("kind", "PyTorchJob").containsEntry("name", "mnist")
            .containsEntry("uid", api.uid(api.jobs() + "/mnist")));

    Map<String, Object> stored = api.get(api.jobs() + "/mnist");
    assertThat(podTemplates(stored)).hasSize(2).allSatisfy(template ->
        assertThat(Fixtures.<List<Object>>at(template, "spec", "imagePullSecrets"))
            .containsExactly(Map.of("name", "mnist-registry")));
    // The submission's own log lines were captured, and none carries the credentials.
    assertThat(logs.toString(StandardCharsets.UTF_8)).contains("Created PyTorchJob mnist");
    assertNoSecretIn(logs.toString(StandardCharsets.UTF_8));

    job.delete();
    api.awaitGone(secretPath);
  }

  @Test
  void aRejectedSecretNeverQuotesTheCredentials() {
    String ns = api.ns();
    // An admission policy whose message quotes the Secret's content, as a careless policy or
    // webhook may: the server sends the credentials back in its error.
    String policy = ns + "-no-pull-secrets";
    api.post("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies", Map.of(
        "apiVersion", "admissionregistration.k8s.io/v1", "kind", "ValidatingAdmissionPolicy",
        "metadata", Map.of("name", policy),
        "spec", Map.of("failurePolicy", "Fail",
            "matchConstraints", Map.of("resourceRules", List.of(Map.of("apiGroups", List.of(""),
                "apiVersions", List.of("v1"), "operations", List.of("CREATE"),
                "resources", List.of("secrets")))),
            "validations", List.of(Map.of(
                "expression", "object.type != 'kubernetes.io/dockerconfigjson'",
                "messageExpression", "'registry credentials are not allowed here: '"
                    + " + string(object.data['.dockerconfigjson'])",
                "reason", "Invalid")))));
    api.post("/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings", Map.of(
        "apiVersion", "admissionregistration.k8s.io/v1",
        "kind", "ValidatingAdmissionPolicyBinding", "metadata", Map.of("name", policy),
        "spec", Map.of("policyName", policy, "validationActions", List.of("Deny"),
            "matchResources", Map.of("namespaceSelector", Map.of("matchLabels",
                Map.of("kubernetes.io/metadata.name", ns))))));
    Map<String, Object> probe = Map.of("apiVersion", "v1", "kind", "Secret",
        "metadata", Map.of("name", "probe"), "type", "kubernetes.io/dockerconfigjson",
        "stringData", Map.of(".dockerconfigjson", "{\"auths\":{}}"));
    RealApiObjects.await("the policy is in force", () -> {
      Response response = api.server().send(User.FIXTURE, "POST", api.core("secrets")
          + "?dryRun=All", probe, "application/json");
      return response.status() == 422 && response.body().contains("not allowed here");
    });

    assertThatThrownBy(() -> Deployers.pyTorchJob("mnist").on(api.cluster())
        .pullCredentials(CREDENTIALS)
        .asDeployer().deploy(Fixtures.context(), Optional.of(Fixtures.image()),
            ProgressListener.NONE))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.httpStatus()).contains(422);
          assertThat(e.getMessage()).contains("registry credentials are not allowed here");
          assertNoSecretIn(e.getMessage());
        });
    assertThat(api.get(api.jobs() + "/mnist")).isEmpty();
  }
}
