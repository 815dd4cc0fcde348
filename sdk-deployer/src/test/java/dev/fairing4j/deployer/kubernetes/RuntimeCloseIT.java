package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.FairingRuntime;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.RealKubernetes;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A {@link FairingRuntime} owns the watches, log followers and connection pool its work opened on
 * a real API server: closing it ends their threads at once, a wait running on its watch fails
 * saying the runtime closed (not a timeout, not a success), and the job itself stays in the
 * cluster, readable and deletable afterwards.
 */
@Timeout(90)
class RuntimeCloseIT {
  @RegisterExtension
  static final RealKubernetes K8S = RealKubernetes.shared().withControllers();

  @Test
  void closingTheRuntimeEndsItsWatchAndFollowerAndFailsTheWaitSayingSoWhileTheJobStays()
      throws Exception {
    String ns = K8S.namespace();
    new PlayedOperator(K8S.server(), ns);
    KubernetesCluster cluster = Clusters.kubernetes().kubeconfig(K8S.kubeconfig())
        .withTimings(TestJobs.FAST);
    FairingRuntime runtime = FairingRuntime.create();
    TrainingJob job = runtime.call(() -> cluster.submit(TestJobs.pyTorchJob("owned", ns),
        BuildContext.empty(), SubmitOptions.DEFAULT, ProgressListener.NONE));
    List<LogLine> lines = new CopyOnWriteArrayList<>();
    // Followed from this thread, outside call(): the handle's runtime owns the follower.
    LogStream follower = job.logs().stream(lines::add);
    CompletableFuture<JobStatus> wait = CompletableFuture.supplyAsync(
        () -> job.waitForCompletion(Duration.ofSeconds(60)));
    Predicate<Thread> watch = t -> t.getName().equals("fairing4j-watch-pytorchjobs-" + ns);
    Predicate<Thread> logs = t -> t.getName().equals("fairing4j-logs-owned");
    awaitThreads(watch.or(logs), 2);

    runtime.close();

    assertThatThrownBy(() -> wait.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class).cause()
        .isInstanceOf(FairingException.class)
        .hasMessageContaining("the FairingRuntime this wait ran on was closed")
        .hasMessageContaining("attach to the job again");
    assertThat(follower.isDone()).isTrue();
    awaitThreads(watch.or(logs), 0);
    assertThat(runtime).hasToString(runtime.toString().replaceAll("\\d+ parts running",
        "closed"));
    // The job is the user's: it stays, and the handle still reads and deletes it.
    assertThat(job.status().phase()).isEqualTo(JobPhase.PENDING);
    job.delete();
  }

  private static void awaitThreads(Predicate<Thread> which, int count) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    long alive = -1;
    while (System.nanoTime() < deadline) {
      alive = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
          .filter(which).count();
      if (alive == count) {
        return;
      }
      Thread.sleep(20);
    }
    assertThat(alive).as("threads matching after 10 s").isEqualTo(count);
  }
}
