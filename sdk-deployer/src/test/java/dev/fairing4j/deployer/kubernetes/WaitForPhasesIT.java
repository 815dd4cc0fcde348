package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.JobFailedException;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.JobTimeoutException;
import dev.fairing4j.core.testing.AuditLog;
import dev.fairing4j.core.testing.KubeApiServer.User;
import dev.fairing4j.core.testing.RealKubernetes;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.TrainingClient;
import dev.fairing4j.deployer.job.internal.JsonTree;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code waitFor(phases, timeout, onChange)} on a real API server, the test playing the operator
 * ({@link PlayedOperator}): waits for different phases of one job share the cluster's one watch
 * and each hears the phases on its way; a failure asked for is the answer, one not asked for
 * throws the operator's message, whether the job is followed on the shared watch or on a watch
 * of its own; a timeout changes nothing on the server; an empty set is refused before any
 * request.
 */
@Timeout(120)
class WaitForPhasesIT {
  @RegisterExtension
  static final RealKubernetes K8S = RealKubernetes.shared();

  private PlayedOperator operator;
  private TrainingClient client;
  private String jobs;

  @BeforeEach
  void connect() {
    operator = new PlayedOperator(K8S.server(), K8S.namespace());
    jobs = operator.kubeflow("pytorchjobs");
    client = TrainingClient.connect(Clusters.kubernetes().kubeconfig(K8S.kubeconfig())
        .withTimings(TestJobs.FAST)).inNamespace(K8S.namespace());
  }

  /** Runs {@code wait} on a thread of its own (the common pool may have one thread here). */
  private static CompletableFuture<JobStatus> inBackground(Supplier<JobStatus> wait) {
    return CompletableFuture.supplyAsync(wait, task -> new Thread(task, "wait-for").start());
  }

  private static List<JobPhase> phases(List<JobStatus> heard) {
    return heard.stream().map(JobStatus::phase).toList();
  }

  private List<AuditLog.Request> sdkRequests(AuditLog.Mark since, String verb) {
    return K8S.server().audit().since(since, User.SDK).stream()
        .filter(r -> r.verb().equals(verb) && r.path().equals(jobs)).toList();
  }

  @Test
  void twoWaitsForDifferentPhasesShareOneWatchAndEachHearsThePhasesOnItsWay() throws Exception {
    operator.pyTorchJob("mnist", 1, true);
    operator.pyTorchPhase("mnist", "Created");
    AuditLog.Mark start = K8S.server().audit().mark();
    List<JobStatus> toStart = new CopyOnWriteArrayList<>();
    List<JobStatus> toEnd = new CopyOnWriteArrayList<>();

    CompletableFuture<JobStatus> started = inBackground(() -> client.waitFor("mnist",
        Set.of(JobPhase.RUNNING), Duration.ofSeconds(90), toStart::add));
    CompletableFuture<JobStatus> ended = inBackground(() -> client.attach("mnist").waitFor(
        Set.of(JobPhase.SUCCEEDED, JobPhase.FAILED), Duration.ofSeconds(90), toEnd::add));
    PlayedOperator.await("both waits heard Created and the watch is open", () ->
        !toStart.isEmpty() && !toEnd.isEmpty() && !sdkRequests(start, "watch").isEmpty());

    operator.pyTorchPhase("mnist", "Running");
    assertThat(started.get(60, TimeUnit.SECONDS).phase()).isEqualTo(JobPhase.RUNNING);
    assertThat(ended).as("the other wait goes on").isNotDone();

    operator.pyTorchPhase("mnist", "Succeeded");
    JobStatus end = ended.get(60, TimeUnit.SECONDS);

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(phases(toStart)).containsExactly(JobPhase.CREATED, JobPhase.RUNNING);
    assertThat(phases(toEnd)).containsExactly(JobPhase.CREATED, JobPhase.RUNNING,
        JobPhase.SUCCEEDED);
    assertThat(sdkRequests(start, "watch")).as("one watch for both waits").hasSize(1);
  }

  @Test
  void aFailureAskedForIsTheAnswerAndOneNotAskedForThrowsTheOperatorsMessage() {
    operator.pyTorchJob("unlabelled", 0, false); // not the SDK's: followed on a watch of its own
    operator.pyTorchPhase("unlabelled", "Running");
    List<JobStatus> heard = new CopyOnWriteArrayList<>();
    CompletableFuture<JobStatus> end = inBackground(() -> client.waitFor("unlabelled",
        Set.of(JobPhase.SUCCEEDED, JobPhase.FAILED), Duration.ofSeconds(90), heard::add));
    PlayedOperator.await("the wait heard Running", () -> !heard.isEmpty());

    operator.pyTorchPhase("unlabelled", "Failed");

    assertThat(end).succeedsWithin(Duration.ofSeconds(60))
        .satisfies(s -> assertThat(s.phase()).isEqualTo(JobPhase.FAILED));
    assertThat(phases(heard)).containsExactly(JobPhase.RUNNING, JobPhase.FAILED);
    JobFailedException failed = catchThrowableOfType(() -> client.waitFor("unlabelled",
        Set.of(JobPhase.RUNNING), Duration.ofSeconds(30), s -> { }), JobFailedException.class);
    assertThat(failed).isNotNull();
    assertThat(failed.getMessage()).contains("1 Master replica(s) failed");
  }

  @Test
  void aTimeoutChangesNothingOnTheServer() {
    operator.pyTorchJob("slow", 0, true);
    operator.pyTorchPhase("slow", "Running");
    List<JobStatus> heard = new CopyOnWriteArrayList<>();
    AuditLog.Mark start = K8S.server().audit().mark();

    JobTimeoutException timeout = catchThrowableOfType(() -> client.waitFor("slow",
        Set.of(JobPhase.SUCCEEDED), Duration.ofMillis(600), heard::add),
        JobTimeoutException.class);

    assertThat(timeout.lastStatus().phase()).isEqualTo(JobPhase.RUNNING);
    assertThat(timeout.timeout()).isEqualTo(Duration.ofMillis(600));
    assertThat(phases(heard)).containsExactly(JobPhase.RUNNING);
    assertThat(K8S.server().audit().since(start, User.SDK)).extracting(AuditLog.Request::verb)
        .containsOnly("get", "list", "watch");
    Map<String, Object> stored = operator.get(jobs + "/slow").orElseThrow();
    assertThat(JsonTree.at(stored, "metadata", "deletionTimestamp")).isEmpty();
  }

  @Test
  void anEmptySetIsRefusedBeforeAnyRequest() {
    operator.pyTorchJob("idle", 0, true);
    AuditLog.Mark start = K8S.server().audit().mark();

    InvalidInputException empty = catchThrowableOfType(() -> client.waitFor("idle", Set.of(),
        Duration.ofSeconds(5), s -> { }), InvalidInputException.class);
    assertThat(empty.field()).isEqualTo("phases");
    assertThat(K8S.server().audit().since(start, User.SDK)).as("nothing read").isEmpty();

    InvalidInputException onHandle = catchThrowableOfType(() -> client.attach("idle").waitFor(
        Set.of(), Duration.ofSeconds(5)), InvalidInputException.class);
    assertThat(onHandle.field()).isEqualTo("phases");
    assertThat(K8S.server().audit().since(start, User.SDK)).as("only attach()'s reads")
        .extracting(AuditLog.Request::verb).containsOnly("get");
  }
}
