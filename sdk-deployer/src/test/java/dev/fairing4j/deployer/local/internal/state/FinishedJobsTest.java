package dev.fairing4j.deployer.local.internal.state;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.deployer.local.internal.settings.Retention;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FinishedJobsTest {
  private static final Instant NOW = Instant.parse("2026-11-27T12:00:00Z");

  @TempDir
  Path state;

  @Test
  void theNewestFinishedJobsAreKeptAndOlderOnesGoWithTheirFiles() throws IOException {
    StateStore store = new StateStore(state);
    for (int i = 1; i <= 4; i++) {
      job(store, "default", "job-" + i, NOW.minus(Duration.ofHours(10 - i)), true, Map.of());
    }

    List<String> removed = FinishedJobs.prune(store,
        new Retention(2, Duration.ofDays(30)), NOW);

    assertThat(removed).containsExactlyInAnyOrder("default/job-1", "default/job-2");
    assertThat(store.jobDirs("default")).extracting(p -> p.getFileName().toString())
        .containsExactly("job-3", "job-4");
  }

  @Test
  void aJobOlderThanTheAgeGoesAndARunningJobStaysWhateverItsAge() throws IOException {
    StateStore store = new StateStore(state);
    job(store, "team-a", "old", NOW.minus(Duration.ofDays(31)), true, Map.of());
    job(store, "team-a", "running", NOW.minus(Duration.ofDays(90)), false, Map.of());
    job(store, "team-b", "fresh", NOW.minus(Duration.ofDays(1)), true, Map.of());

    FinishedJobs.prune(store, Retention.DEFAULT, NOW);

    assertThat(store.jobDirs("team-a")).extracting(p -> p.getFileName().toString())
        .containsExactly("running");
    assertThat(store.jobDirs("team-b")).hasSize(1);
  }

  @Test
  void ttlSecondsAfterFinishedRemovesAJobThatLongAfterItFinishedAsTheOperatorDoes()
      throws IOException {
    StateStore store = new StateStore(state);
    Map<String, Object> ttl60 = Map.of("runPolicy", Map.of("ttlSecondsAfterFinished", 60));
    job(store, "default", "expired", NOW.minusSeconds(61), true, ttl60);
    job(store, "default", "not-yet", NOW.minusSeconds(30), true, ttl60);
    job(store, "default", "batch", NOW.minusSeconds(61), true,
        Map.of("ttlSecondsAfterFinished", 0));

    FinishedJobs.prune(store, Retention.DEFAULT, NOW);

    assertThat(store.jobDirs("default")).extracting(p -> p.getFileName().toString())
        .containsExactly("not-yet");
  }

  private static void job(StateStore store, String namespace, String name, Instant completed,
      boolean settled, Map<String, Object> spec) throws IOException {
    Path dir = store.jobDir(namespace, name);
    Files.createDirectories(dir.resolve("logs"));
    Files.writeString(dir.resolve("logs/master-0.log"), "epoch 1 loss 0.5\n");
    String kind = spec.containsKey("runPolicy") || spec.isEmpty() ? "PyTorchJob" : "Job";
    JobRecord record = new JobRecord(JobRecord.VERSION, kind, name, namespace,
        completed.minusSeconds(5).toString(), 1, null, "bwrap",
        List.of(Map.of("kind", kind, "spec", spec)), Map.of(), List.of(),
        completed.minusSeconds(4).toString(), settled ? completed.toString() : null, settled,
        List.of(), List.of(), true);
    assertThat(store.write(dir, record)).isTrue();
  }
}
