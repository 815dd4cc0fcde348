package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.builder.Builders;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.JobFailedException;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.JobTimeoutException;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.Preprocessor;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tags;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.kubeflow.XGBoostJobDeployer;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The XGBoostJob on the kit's real operator: the same script as {@link XGBoostJobLocalIT}
 * (upstream's xgboost-dist shape: rank 0 starts the tracker on {@code MASTER_ADDR:MASTER_PORT})
 * built by Jib on the torch base, which carries Debian's {@code python3-xgboost}. The operator's
 * Services and environment make a Master and two Workers one collective that trains one model;
 * a script that hard-codes a larger world never forms it and never succeeds.
 */
@Tag(Tags.CLUSTER)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ClusterXGBoostJobIT {
  private static final Pattern RESULT = Pattern.compile(
      "rank=(\\d) world=(\\d) accuracy=([0-9.]+) model=([0-9a-f]{16})");

  private static ClusterKit kit;

  @BeforeAll
  static void kit() {
    kit = ClusterKit.get();
  }

  private static TrainingJob run(String name, Preprocessor script, XGBoostJobDeployer deployer) {
    return Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(script)
        .builder(Builders.jib(kit.base().reference()).pushTo(ClusterKit.repository(name)))
        .deployer(deployer.namespace(kit.namespace()).replaceExisting().on(kit.cluster()))
        .run();
  }

  @Test
  void aMasterAndTwoWorkersTrainOneModelThroughTheOperatorsServices() {
    TrainingJob job = run("xgb-dist", Preprocessors.source("train.py",
        XGBoostJobLocalIT.script()), Deployers.xgboostJob("xgb-dist").workers(2));
    List<String> lines = new CopyOnWriteArrayList<>();
    JobStatus end;
    try (LogStream logs = job.logs().follow(line -> lines.add(line.toString()))) {
      end = job.waitForCompletion(Duration.ofMinutes(3));
      assertThat(logs.awaitEnd(Duration.ofSeconds(30))).isTrue();
    } finally {
      System.out.println(String.join("\n", lines));
    }

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(end.pods()).extracting(p -> p.name()).contains("xgb-dist-master-0");
    // The tracker's address is the Master's Service name the operator injected, not loopback.
    assertThat(lines).anyMatch(l -> l.startsWith("[master-0] ")
        && l.contains(" INFO xgboost-dist: rank 0 of 3, tracker at xgb-dist-master-0:9999"));
    List<Matcher> results = lines.stream().map(RESULT::matcher).filter(Matcher::find).toList();
    assertThat(results).extracting(m -> m.group(1)).containsExactlyInAnyOrder("0", "1", "2");
    assertThat(results).extracting(m -> m.group(2)).containsOnly("3");
    Set<String> models = results.stream().map(m -> m.group(4)).collect(Collectors.toSet());
    assertThat(models).as("one model, reduced over all ranks").hasSize(1);
    assertThat(job.metrics().latest("master-0", "accuracy")).hasValueSatisfying(
        accuracy -> assertThat(accuracy).isGreaterThan(0.9));
    job.delete();
  }

  @Test
  void aHardCodedWorldLargerThanTheJobNeverSucceedsAndNoRankReportsAModel() {
    // The world of 3 never forms with 2 replicas: the tracker waits for a third rank. The job
    // ends at its deadline when the operator next reconciles it (on the kit that can be minutes
    // later: nothing changes on a job whose pods wait quietly), so the wait ends first and says
    // the job still runs. Either way: no success, and no rank printed a model.
    TrainingJob job = run("xgb-wrong", Preprocessors.source("train.py",
        XGBoostJobLocalIT.script()).args("--world-size", "3"),
        Deployers.xgboostJob("xgb-wrong").workers(1).activeDeadlineSeconds(20));
    try {
      assertThatThrownBy(() -> job.waitForCompletion(Duration.ofSeconds(60)))
          .satisfiesAnyOf(
              e -> assertThat(e).isInstanceOf(JobFailedException.class)
                  .hasMessageContaining("XGBoostJob xgb-wrong has failed because it was active"
                      + " longer than specified deadline"),
              e -> assertThat(e).isInstanceOf(JobTimeoutException.class)
                  .hasMessageContaining("still Running"));
      assertThat(job.status().phase()).isIn(JobPhase.RUNNING, JobPhase.FAILED);
      assertThat(job.logs().snapshot()).extracting(l -> l.text())
          .anyMatch(l -> l.contains("rank 0 of 3"))
          .noneMatch(l -> RESULT.matcher(l).find());
    } finally {
      job.delete();
    }
  }
}
