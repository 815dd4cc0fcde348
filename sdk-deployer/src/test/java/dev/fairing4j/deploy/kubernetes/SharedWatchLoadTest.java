package dev.fairing4j.deploy.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deploy.Clusters;
import dev.fairing4j.deploy.TrainingClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * 200 PyTorchJobs followed concurrently from one {@link TrainingClient} against a list+watch
 * server: every wait ends SUCCEEDED when its job does, in whatever order the jobs finish, over
 * one shared watch rather than one per job, also across a dropped watch connection and a 410
 * Gone in the middle.
 */
@Timeout(120)
class SharedWatchLoadTest {
  private static final int JOBS = 200;

  @TempDir
  Path dir;

  private ListWatchApiServer api;
  private TrainingClient client;
  private ExecutorService pool;

  @BeforeEach
  void start() {
    api = new ListWatchApiServer();
    for (int i = 0; i < JOBS; i++) {
      api.put(name(i), "Running");
    }
    client = TrainingClient.connect(Clusters.kubernetes().kubeconfig(api.kubeconfig(dir))
        .withTimings(TestJobs.FAST)).inNamespace(ListWatchApiServer.NS);
    pool = Executors.newFixedThreadPool(JOBS);
  }

  @AfterEach
  void stop() throws InterruptedException {
    pool.shutdownNow();
    pool.awaitTermination(10, TimeUnit.SECONDS);
    api.close();
  }

  private static String name(int i) {
    return "job-" + i;
  }

  /** Attaches to every job and starts waiting for each on its own thread. */
  private List<CompletableFuture<JobStatus>> followAll() {
    List<TrainingJob> handles = IntStream.range(0, JOBS).mapToObj(i -> client.attach(name(i)))
        .toList();
    return handles.stream().map(h -> CompletableFuture.supplyAsync(
        () -> h.waitForCompletion(Duration.ofSeconds(90)), pool)).toList();
  }

  /** Every waiter has read its job and listed its pods once: all are subscribed. */
  private void awaitAllFollowing() {
    awaitTrue(() -> api.requests().stream().filter(r -> r.getUrl().encodedPath()
        .endsWith("/pods")).count() >= JOBS && api.openWatches() > 0);
  }

  private static void awaitTrue(BooleanSupplier condition) {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime()).as("condition reached in time").isLessThan(end);
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    }
  }

  private static List<Integer> shuffledOrder(long seed) {
    List<Integer> order = new ArrayList<>(IntStream.range(0, JOBS).boxed().toList());
    Collections.shuffle(order, new Random(seed));
    return order;
  }

  private static void assertAllSucceeded(List<CompletableFuture<JobStatus>> waits)
      throws Exception {
    CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new)).get(90, TimeUnit.SECONDS);
    for (int i = 0; i < JOBS; i++) {
      JobStatus status = waits.get(i).get();
      assertThat(status.phase()).isEqualTo(JobPhase.SUCCEEDED);
      assertThat(status.name()).isEqualTo(name(i));
    }
  }

  @Test
  void twoHundredWaitsShareOneWatch() throws Exception {
    int attachRequests = JOBS; // one GET per attach
    List<CompletableFuture<JobStatus>> waits = followAll();
    awaitAllFollowing();
    assertThat(waits).noneMatch(CompletableFuture::isDone);

    for (int i : shuffledOrder(8)) {
      api.put(name(i), "Succeeded");
    }

    assertAllSucceeded(waits);
    assertThat(api.watchRequests()).isEqualTo(1);
    assertThat(api.listRequests()).isEqualTo(1);
    double perJob = (api.requests().size() - attachRequests) / (double) JOBS;
    System.out.println("shared watch: " + api.requests().size() + " requests for " + JOBS
        + " jobs (" + perJob + " per job for waiting), " + api.watchRequests() + " watch(es)");
    // One read of the job and one pod list per phase seen (Running, Succeeded), plus a share
    // of the single list and watch: bounded per job, not growing with the number of jobs.
    assertThat(perJob).isLessThanOrEqualTo(3.1);
    // The shared watch's thread ends with its last waiter.
    awaitTrue(() -> Thread.getAllStackTraces().keySet().stream()
        .noneMatch(t -> t.getName().startsWith("fairing4j-watch-")));
  }

  @Test
  void aDroppedWatchAndA410InTheMiddleAreSurvived() throws Exception {
    List<CompletableFuture<JobStatus>> waits = followAll();
    awaitAllFollowing();
    List<Integer> order = shuffledOrder(42);

    for (int k = 0; k < JOBS; k++) {
      if (k == 70) {
        api.dropWatches();
      }
      if (k == 140) {
        api.expire();
      }
      api.put(name(order.get(k)), "Succeeded");
    }

    assertAllSucceeded(waits);
    // The first watch, its resumption after the drop, and one after the relist that the 410
    // forces: three when nothing races. A few more are tolerated for resumptions racing the
    // faults on a loaded machine; one per job (200) is what this guards against.
    String requests = api.requests().stream().filter(r -> r.getUrl().encodedPath()
        .equals(ListWatchApiServer.JOBS)).map(r -> r.getUrl().query()).toList().toString();
    System.out.println("with a drop and a 410: " + requests);
    assertThat(api.watchRequests()).as(requests).isBetween(3L, 5L);
    assertThat(api.listRequests()).as(requests).isBetween(2L, 4L);
  }

  @Test
  void aJobDeletedWhileFollowedEndsItsWaitWithNotFound() throws Exception {
    List<CompletableFuture<JobStatus>> waits = followAll();
    awaitAllFollowing();

    api.delete(name(7));
    for (int i : shuffledOrder(3)) {
      if (i != 7) {
        api.put(name(i), "Succeeded");
      }
    }

    CompletableFuture<JobStatus> deleted = waits.get(7);
    assertThat(deleted).failsWithin(Duration.ofSeconds(30)).withThrowableOfType(
        java.util.concurrent.ExecutionException.class).havingCause()
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> assertThat(e.problem())
            .isEqualTo(KubernetesApiException.Problem.NOT_FOUND));
    for (int i = 0; i < JOBS; i++) {
      if (i != 7) {
        assertThat(waits.get(i).get(60, TimeUnit.SECONDS).phase())
            .isEqualTo(JobPhase.SUCCEEDED);
      }
    }
    assertThat(api.watchRequests()).isEqualTo(1);
  }

  @Test
  void aRefusedSharedWatchFallsBackToFollowingEachJobAlone() throws Exception {
    api.refuseWatches();
    List<CompletableFuture<JobStatus>> waits = IntStream.range(0, 5).mapToObj(i -> {
      TrainingJob handle = client.attach(name(i));
      return CompletableFuture.supplyAsync(() -> handle.waitForCompletion(Duration.ofSeconds(30)),
          pool);
    }).toList();
    awaitTrue(() -> api.watchRequests() >= 5); // each fell back and tried its own watch

    for (int i = 0; i < 5; i++) {
      api.put(name(i), "Succeeded");
    }

    for (CompletableFuture<JobStatus> wait : waits) {
      assertThat(wait.get(30, TimeUnit.SECONDS).phase()).isEqualTo(JobPhase.SUCCEEDED);
    }
    // Each then polled its job by name.
    assertThat(api.requests()).filteredOn(r -> r.getUrl().encodedPath()
        .equals(ListWatchApiServer.JOBS + "/" + name(0))).hasSizeGreaterThan(2);
  }
}
