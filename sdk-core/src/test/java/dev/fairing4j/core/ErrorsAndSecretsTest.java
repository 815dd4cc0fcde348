package dev.fairing4j.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ErrorsAndSecretsTest {

  @Test
  void secretNeverShowsItsValueInToStringOrInsideRecords() {
    Secret password = Secret.of("hunter2-very-secret");
    record Credentials(String user, Secret password) {}

    assertThat(password.toString()).isEqualTo("****");
    assertThat(new Credentials("ci", password).toString()).doesNotContain("hunter2");
    assertThat(password.reveal()).isEqualTo("hunter2-very-secret");
    assertThat(password).isEqualTo(Secret.of("hunter2-very-secret".toCharArray()))
        .isNotEqualTo(Secret.of("other"));
  }

  @Test
  void secretCopiesTheCallersArray() {
    char[] chars = "token".toCharArray();
    Secret secret = Secret.of(chars);
    java.util.Arrays.fill(chars, 'x');
    assertThat(secret.reveal()).isEqualTo("token");
  }

  @Test
  void fairingExceptionCarriesStructuredFieldsAndAReadableMessage() {
    FairingException e = FairingException.of("push image", "127.0.0.1:5000",
        "connection refused", "start the registry or check the address", null);

    assertThat(e.what()).isEqualTo("push image");
    assertThat(e.subject()).contains("127.0.0.1:5000");
    assertThat(e.hint()).contains("start the registry or check the address");
    assertThat(e.httpStatus()).isEmpty();
    assertThat(e.getMessage()).isEqualTo("push image [127.0.0.1:5000] failed: connection refused"
        + " (fix: start the registry or check the address)");
  }

  @Test
  void invalidInputNamesFieldAndFix() {
    InvalidInputException e = InvalidInputException.of("memory", "'4Gx' is not a quantity",
        "write '4Gi'");
    assertThat(e).isInstanceOf(FairingException.class);
    assertThat(e.field()).isEqualTo("memory");
    assertThat(e.fix()).isEqualTo("write '4Gi'");
    assertThat(e.getMessage()).isEqualTo(
        "validate memory failed: '4Gx' is not a quantity (fix: write '4Gi')");
  }

  @Test
  void jobFailedExceptionLeadsWithTheReason() {
    JobStatus status = new JobStatus("mnist", "PyTorchJob",
        List.of(JobCondition.isTrue("Failed", "PyTorchJobFailed", "master-0 exited with 1")),
        Map.of(), Optional.empty(), Optional.empty(), List.of());
    JobFailedException e = new JobFailedException(status, Optional.of("master-0"), Optional.of(1),
        "PyTorchJob mnist is failed because 1 Master replica(s) failed.",
        List.of("Traceback (most recent call last):", "ZeroDivisionError: division by zero"),
        List.of("Warning ExitedWithCode mnist-master-0 exited with code 1"));

    assertThat(e.exitCode()).contains(1);
    assertThat(e.failedReplica()).contains("master-0");
    assertThat(e.getMessage()).startsWith("training job [PyTorchJob mnist] failed: replica master-0"
        + " exited with code 1").contains("ZeroDivisionError").contains("ExitedWithCode");
  }

  @Test
  void valuesHaveShortToStrings() {
    assertThat(new ReplicaStatus(1, 0, 0).toString()).isEqualTo("active=1 succeeded=0 failed=0");
    assertThat(JobCondition.isTrue("Running", "PyTorchJobRunning", "").toString())
        .isEqualTo("Running=True (PyTorchJobRunning)");
    assertThat(new LogLine("master-0", "pytorch", "loss=0.5", Optional.empty()).toString())
        .isEqualTo("[master-0] loss=0.5");
    assertThat(Fairing.pipeline().toString()).hasSizeLessThan(120);
  }

  @Test
  void jobTimeoutExceptionSaysWhyAPodDoesNotRun() {
    PodInfo running = new PodInfo("mnist-master-0", "Master", 0, "Running", Optional.of("n1"),
        Optional.empty(), Optional.empty(), 0, Optional.empty());
    PodInfo stuck = new PodInfo("mnist-worker-0", "Worker", 0, "Pending", Optional.empty(),
        Optional.of("Unschedulable"),
        Optional.of("0/3 nodes are available: 3 Insufficient nvidia.com/gpu.\nsecond line"), 0,
        Optional.empty());
    JobStatus status = new JobStatus("mnist", "PyTorchJob",
        List.of(JobCondition.isTrue("Created", "PyTorchJobCreated", "")), Map.of(),
        Optional.empty(), Optional.empty(), List.of(running, stuck));

    JobTimeoutException e = new JobTimeoutException(status, Duration.ofMinutes(5), null);

    assertThat(e.getMessage()).contains("still Created after 5 min (mnist-worker-0 Unschedulable:"
        + " 0/3 nodes are available: 3 Insufficient nvidia.com/gpu.)")
        .doesNotContain("second line");
    assertThat(new JobTimeoutException(new JobStatus("mnist", "PyTorchJob", List.of(), Map.of(),
        Optional.empty(), Optional.empty(), List.of(running)), Duration.ofMinutes(5), "deleted")
        .getMessage()).contains("still Pending after 5 min; deleted");
    assertThat(e.hint()).get().asString().contains("no node can run the pod")
        .doesNotContain("wait longer");
  }

  @Test
  void aTimeoutWhileCrashLoopingShowsTheLastLinesAndEventsAndNeverSaysWaitLonger() {
    PodInfo crashing = new PodInfo("mnist-master-0", "Master", 0, "Running", Optional.of("n1"),
        Optional.of("CrashLoopBackOff"), Optional.of("back-off 40s restarting failed container"
            + "; last lines: Traceback (most recent call last): | ZeroDivisionError: division by"
            + " zero"), 4, Optional.of(1));
    JobStatus status = new JobStatus("mnist", "PyTorchJob",
        List.of(JobCondition.isTrue("Running", "PyTorchJobRunning", "")), Map.of(),
        Optional.empty(), Optional.empty(), List.of(crashing),
        List.of("BackOff: Back-off restarting failed container pytorch"));

    JobTimeoutException e = new JobTimeoutException(status, Duration.ofMinutes(2), null);

    assertThat(e.getMessage()).contains("mnist-master-0 CrashLoopBackOff")
        .contains("ZeroDivisionError: division by zero")
        .contains("restarted 4 times, last exit code 1")
        .contains("events: BackOff: Back-off restarting failed container pytorch")
        .contains(".backoffLimit(n)").contains("RestartPolicy.NEVER")
        .doesNotContain("wait longer");
  }

  @Test
  void onlyAJobRunningAsItShouldIsToldToWaitLonger() {
    JobStatus status = running();

    assertThat(new JobTimeoutException(status, Duration.ofMinutes(2), null).hint()).get()
        .asString().contains("wait longer");
  }

  @Test
  void aJobTheWaitDeletedOrSuspendedIsNotToldToWaitLonger() {
    JobStatus status = running();

    assertThat(new JobTimeoutException(status, Duration.ofMinutes(2), "deleted it").hint())
        .get().asString().contains("run it again with a larger timeout")
        .doesNotContain("wait longer");
    assertThat(new JobTimeoutException(status, Duration.ofMinutes(2), "suspended it").hint())
        .get().asString().contains("resume it").doesNotContain("wait longer");
    assertThat(new JobTimeoutException(status, Duration.ofMinutes(2),
        "its processes were stopped").hint()).get().asString()
        .contains("run it again with a larger timeout");
  }

  private static JobStatus running() {
    PodInfo running = new PodInfo("mnist-master-0", "Master", 0, "Running", Optional.of("n1"),
        Optional.empty(), Optional.empty(), 0, Optional.empty());
    return new JobStatus("mnist", "PyTorchJob",
        List.of(JobCondition.isTrue("Running", "PyTorchJobRunning", "")), Map.of(),
        Optional.empty(), Optional.empty(), List.of(running));
  }
}
