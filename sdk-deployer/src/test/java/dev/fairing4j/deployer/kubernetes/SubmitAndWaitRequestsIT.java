package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.AuditLog;
import dev.fairing4j.core.testing.KubeApiServer.User;
import dev.fairing4j.core.testing.RealKubernetes;
import dev.fairing4j.deployer.job.internal.RenderedJob;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a submit and a wait ask a real API server, counted in its audit log while the test plays
 * the operator ({@link PlayedOperator}): a job alone is created without a look-up first, the
 * wait starts from the object the create returned, rides the shared watch and reads the pods
 * once, at the end; a wait that joins a shared watch after its job already finished learns the
 * end from what that watch saw, without reading the job.
 */
class SubmitAndWaitRequestsIT {
  @RegisterExtension
  static final RealKubernetes K8S = RealKubernetes.shared();

  private final RealApiObjects api = new RealApiObjects(K8S);

  private static RenderedJob alone(String name, String ns) {
    return new RenderedJob("PyTorchJob", name, ns, List.of(TestJobs.pyTorchObject(name)));
  }

  @Test
  void aJobAloneIsSubmittedAndAwaitedWithFourRequests() throws Exception {
    String ns = api.ns();
    PlayedOperator operator = new PlayedOperator(K8S.server(), ns);
    KubernetesCluster cluster = api.cluster();
    AuditLog.Mark mark = K8S.server().audit().mark();

    TrainingJob job = cluster.submit(alone("mnist", ns), BuildContext.empty(),
        SubmitOptions.DEFAULT, ProgressListener.NONE);
    CompletableFuture<JobStatus> wait = CompletableFuture.supplyAsync(
        () -> job.waitForCompletion(Duration.ofSeconds(60)));
    String jobs = operator.kubeflow("pytorchjobs");
    PlayedOperator.await("the wait watches", () -> K8S.server().audit().since(mark, User.SDK)
        .stream().anyMatch(r -> r.verb().equals("watch")));
    operator.pyTorchPhase("mnist", "Running");
    operator.pyTorchPhase("mnist", "Succeeded");

    assertThat(wait.get(60, TimeUnit.SECONDS).phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(K8S.server().audit().since(mark, User.SDK))
        .extracting(r -> r.verb() + " " + r.path())
        .containsExactly("create " + jobs, "list " + jobs, "watch " + jobs,
            "list " + operator.pods());
  }

  @Test
  void aWaitJoiningARunningWatchAfterItsJobEndedLearnsItFromWhatTheWatchSaw()
      throws Exception {
    String ns = api.ns();
    PlayedOperator operator = new PlayedOperator(K8S.server(), ns);
    KubernetesCluster cluster = api.cluster();
    TrainingJob keeper = cluster.submit(alone("keeper", ns), BuildContext.empty(),
        SubmitOptions.DEFAULT, ProgressListener.NONE);
    TrainingJob marker = cluster.submit(alone("marker", ns), BuildContext.empty(),
        SubmitOptions.DEFAULT, ProgressListener.NONE);
    TrainingJob late = cluster.submit(alone("late", ns), BuildContext.empty(),
        SubmitOptions.DEFAULT, ProgressListener.NONE);
    CompletableFuture<JobStatus> keeping = CompletableFuture.supplyAsync(
        () -> keeper.waitForCompletion(Duration.ofSeconds(60)));
    CompletableFuture<JobStatus> marking = CompletableFuture.supplyAsync(
        () -> marker.waitForCompletion(Duration.ofSeconds(60)));
    AuditLog.Mark start = K8S.server().audit().mark();
    PlayedOperator.await("the shared watch runs", () -> K8S.server().audit().since(start,
        User.SDK).stream().anyMatch(r -> r.verb().equals("watch")));

    // 'late' ends while nobody waits for it; 'marker' ends after it, so once marker's wait is
    // over the shared watch has handled late's end too.
    operator.pyTorchPhase("late", "Succeeded");
    operator.pyTorchPhase("marker", "Succeeded");
    assertThat(marking.get(60, TimeUnit.SECONDS).phase()).isEqualTo(JobPhase.SUCCEEDED);
    AuditLog.Mark mark = K8S.server().audit().mark();

    assertThat(late.waitForCompletion(Duration.ofSeconds(30)).phase())
        .isEqualTo(JobPhase.SUCCEEDED);
    String jobs = operator.kubeflow("pytorchjobs");
    assertThat(K8S.server().audit().since(mark, User.SDK))
        .extracting(r -> r.verb() + " " + r.path())
        .containsExactly("list " + operator.pods());
    assertThat(keeping).isNotDone();
    operator.pyTorchPhase("keeper", "Succeeded");
    assertThat(keeping.get(60, TimeUnit.SECONDS).phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(K8S.server().audit().since(start, User.SDK))
        .filteredOn(r -> r.verb().equals("watch") && r.path().equals(jobs)).hasSize(1);
  }
}
