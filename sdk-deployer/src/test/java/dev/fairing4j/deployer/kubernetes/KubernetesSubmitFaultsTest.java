package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.testing.KubernetesApiFixture;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException.Problem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Submission meeting answers a real API server cannot be made to give on demand, scripted on the
 * fabric8 mock; everything else about submission runs on a real server in
 * {@link KubernetesSubmitIT}.
 *
 * <ul>
 *   <li>A 409 on the job's create although the name check just found nothing: another client
 *       created the job in between. A real server answers consistently; losing that race needs
 *       a second writer timed between two requests of the SDK.
 *   <li>A 404 without a body, as some proxies in front of an API server send: a real server
 *       always says what is missing.
 * </ul>
 */
class KubernetesSubmitFaultsTest {
  private static final String NS = "team";
  private static final String JOBS = "/apis/kubeflow.org/v1/namespaces/" + NS + "/pytorchjobs";
  private static final String SERVICES = "/api/v1/namespaces/" + NS + "/services";

  @RegisterExtension
  static final KubernetesApiFixture K8S = new KubernetesApiFixture();

  private final MockObjects mock = new MockObjects(K8S);

  private void submit(String namespace) {
    Clusters.kubernetes().kubeconfig(K8S.kubeconfig()).withTimings(TestJobs.FAST)
        .submit(TestJobs.pyTorchJob("mnist", namespace), BuildContext.empty(),
            SubmitOptions.DEFAULT, ProgressListener.NONE);
  }

  @Test
  void aConflictOnCreateRollsBackTheDependenciesOfThisSubmission() {
    K8S.server().expect().post().withPath(JOBS)
        .andReturn(409, TestJobs.status(409, "AlreadyExists",
            "pytorchjobs.kubeflow.org \"mnist\" already exists",
            "{\"name\":\"mnist\",\"group\":\"kubeflow.org\",\"kind\":\"pytorchjobs\"}"))
        .once();

    assertThatThrownBy(() -> submit(NS))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.ALREADY_EXISTS);
          assertThat(e.hint().orElseThrow()).contains(".replaceExisting()");
        });
    assertThat(mock.get(SERVICES + "/mnist-headless")).isEmpty();
  }

  @Test
  void aMissingNamespaceIsFoundOutWhenThe404HasNoBody() {
    K8S.server().expect().post().withPath("/api/v1/namespaces/nope/services")
        .andReturn(404, "").always();

    assertThatThrownBy(() -> submit("nope"))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.NAMESPACE_NOT_FOUND);
          assertThat(e.hint().orElseThrow()).contains("kubectl create namespace nope");
        });
    // The body said nothing, so the SDK asked whether the namespace exists.
    assertThat(K8S.requestLines()).contains("GET /api/v1/namespaces/nope");
  }
}
