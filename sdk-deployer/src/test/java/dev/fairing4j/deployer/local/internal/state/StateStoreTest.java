package dev.fairing4j.deployer.local.internal.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The state directory's files: records replaced whole, control files, the supervisor lock. */
class StateStoreTest {
  @TempDir
  Path root;

  /**
   * Writers that overlap (a supervisor and a late one of a replaced job, before the lock kept
   * them apart) each replace the record whole: none fails, none leaves a temporary file.
   */
  @Test
  void overlappingWritersEachReplaceTheRecordWhole() throws Exception {
    StateStore store = new StateStore(root);
    Path jobDir = Files.createDirectories(store.jobDir("default", "race"));
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Integer>> writers = new ArrayList<>();
      for (int w = 0; w < 4; w++) {
        int writer = w;
        writers.add(pool.submit(() -> {
          int written = 0;
          for (int i = 0; i < 200; i++) {
            if (store.write(jobDir, record("writer-" + writer + "-" + i))) {
              written++;
            }
          }
          return written;
        }));
      }
      for (Future<Integer> writer : writers) {
        assertThat(writer.get(60, TimeUnit.SECONDS)).isEqualTo(200);
      }
    } finally {
      pool.shutdownNow();
    }

    assertThat(store.read(jobDir).orElseThrow().createdAt()).startsWith("writer-");
    try (Stream<Path> files = Files.list(jobDir)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("job.json");
    }
  }

  @Test
  void aWriteIntoADeletedJobIsRefusedQuietly() throws Exception {
    StateStore store = new StateStore(root);
    Path jobDir = Files.createDirectories(store.jobDir("default", "gone"));
    store.markDeleting(jobDir);

    assertThat(store.write(jobDir, record("late"))).isFalse();
    assertThat(store.write(store.jobDir("default", "never"), record("late"))).isFalse();
  }

  @Test
  void aStopRequestIsTakenOnce() throws Exception {
    StateStore store = new StateStore(root);
    Path jobDir = Files.createDirectories(store.jobDir("default", "stop"));

    store.requestStop(jobDir, "enough");

    assertThat(store.takeStopRequest(jobDir)).contains("enough");
    assertThat(store.takeStopRequest(jobDir)).isEmpty();
  }

  @Test
  void aLockSeesItsDirectoryReplaced() throws Exception {
    StateStore store = new StateStore(root);
    Path jobDir = Files.createDirectories(store.jobDir("default", "locked"));
    SupervisorLock lock = SupervisorLock.acquire(jobDir);
    try {
      assertThat(lock.isStale()).isFalse();

      store.remove(jobDir);
      Files.createDirectories(jobDir);
      Files.writeString(jobDir.resolve(SupervisorLock.FILE), "");

      assertThat(lock.isStale()).as("the job was removed and submitted again").isTrue();
    } finally {
      lock.release();
    }
  }

  private static JobRecord record(String createdAt) {
    return new JobRecord(JobRecord.VERSION, "PyTorchJob", "race", "default", createdAt, 1, null,
        "bwrap", List.of(), Map.of(), List.of(), null, null, false, List.of(), List.of(), true);
  }
}
