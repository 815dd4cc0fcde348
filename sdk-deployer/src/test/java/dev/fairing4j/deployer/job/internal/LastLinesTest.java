package dev.fairing4j.deployer.job.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A failure report shows the script's last lines, not torchrun's report about them. */
class LastLinesTest {
  /** The end of a node's log when its script exited 1 under torchrun (torch 1.13, verbatim). */
  private static final List<String> TORCHRUN_END = List.of(
      "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0"
          + " (pid: 4) of binary: /usr/bin/python3",
      "Traceback (most recent call last):",
      "  File \"<string>\", line 13, in <module>",
      "    raise ChildFailedError(",
      "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
      "============================================================",
      "/app/crash.py FAILED",
      "------------------------------------------------------------",
      "Failures:",
      "  <NO_OTHER_FAILURES>",
      "------------------------------------------------------------",
      "Root Cause (first observed failure):",
      "[0]:",
      "  time      : 2026-11-24_19:09:51",
      "  host      : localhost",
      "  rank      : 1 (local_rank: 0)",
      "  exitcode  : 1 (pid: 4)",
      "  error_file: <N/A>",
      "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
      "============================================================");

  @Test
  void torchrunsReportBecomesOneLineAfterTheScriptsOwnOutput() {
    List<String> log = new ArrayList<>(List.of("loading the data",
        "cannot read /data/train.csv"));
    log.addAll(TORCHRUN_END);

    assertThat(LastLines.of(log)).containsExactly("loading the data",
        "cannot read /data/train.csv", "torchrun: rank 1 (local rank 0) exited with code 1"
            + " (torchrun's report cut; job.logs() has it)");
  }

  @Test
  void aNodeRestartedInPlaceShowsItsLastRun() {
    List<String> log = new ArrayList<>(List.of("attempt 1"));
    log.addAll(TORCHRUN_END);
    log.add("attempt 2");
    log.addAll(TORCHRUN_END);

    assertThat(LastLines.of(log)).containsExactly("attempt 2", "torchrun: rank 1 (local rank 0)"
        + " exited with code 1 (torchrun's report cut; job.logs() has it)");
  }

  @Test
  void aReportCutOffAtTheStartOfTheWindowIsCutToo() {
    List<String> log = new ArrayList<>(TORCHRUN_END.subList(3, TORCHRUN_END.size()));
    log.add("attempt 2");
    log.addAll(TORCHRUN_END);

    assertThat(LastLines.of(log)).containsExactly("attempt 2", "torchrun: rank 1 (local rank 0)"
        + " exited with code 1 (torchrun's report cut; job.logs() has it)");
  }

  @Test
  void otherLogsKeepTheirLastTwentyLines() {
    List<String> log = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      log.add("line " + i);
    }
    log.add("Traceback (most recent call last):");
    log.add("ValueError: bad");

    assertThat(LastLines.of(log)).hasSize(LastLines.SHOWN).endsWith("ValueError: bad")
        .startsWith("line 12");
  }
}
