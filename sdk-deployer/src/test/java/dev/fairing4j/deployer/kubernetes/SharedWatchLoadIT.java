package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.AuditLog;
import dev.fairing4j.core.testing.KubeApiServer;
import dev.fairing4j.core.testing.KubeApiServer.User;
import dev.fairing4j.core.testing.RealKubernetes;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.TrainingClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * 200 PyTorchJobs on a real API server followed concurrently from one {@link TrainingClient},
 * the test playing the operator ({@link PlayedOperator}): every wait ends SUCCEEDED when its job
 * does, in whatever order the jobs finish, over one shared watch rather than one per job (counted
 * in the server's audit log); also across two API-server restarts in the middle, the second
 * after etcd compacted the history the watch would resume from (410 Gone). A job deleted while
 * followed ends its wait with NOT_FOUND, and where RBAC denies the {@code watch} verb each wait
 * falls back to following its job alone.
 */
@Timeout(300)
class SharedWatchLoadIT {
  private static final int JOBS = 200;

  @RegisterExtension
  static final RealKubernetes K8S = RealKubernetes.shared();

  private final ExecutorService pool = Executors.newFixedThreadPool(JOBS);
  private KubeApiServer dedicated;
  private KubeApiServer server;
  private PlayedOperator operator;
  private AuditLog.Mark start;
  private TrainingClient client;

  @AfterEach
  void stop() throws InterruptedException {
    pool.shutdownNow();
    pool.awaitTermination(10, TimeUnit.SECONDS);
    if (dedicated != null) {
      dedicated.close();
    }
  }

  /** {@code count} Running jobs (each with its Master pod when asked) and a client on them. */
  private void jobs(KubeApiServer on, String ns, Path kubeconfig, int count, boolean pods) {
    server = on;
    operator = new PlayedOperator(on, ns);
    inParallel(count, i -> {
      operator.pyTorchJob(name(i), 0, true);
      operator.pyTorchPhase(name(i), "Running");
      if (pods) {
        operator.pyTorchPod(name(i), "master", 0, "{\"phase\":\"Running\"}");
      }
    });
    start = on.audit().mark();
    client = TrainingClient.connect(Clusters.kubernetes().kubeconfig(kubeconfig)
        .withTimings(TestJobs.FAST)).inNamespace(ns);
  }

  private void onShared(int count, boolean pods) {
    jobs(K8S.server(), K8S.namespace(), K8S.kubeconfig(), count, pods);
  }

  private static void inParallel(int count, IntConsumer task) {
    ExecutorService setup = Executors.newFixedThreadPool(8);
    try {
      CompletableFuture.allOf(IntStream.range(0, count).mapToObj(i -> CompletableFuture.runAsync(
          () -> task.accept(i), setup)).toArray(CompletableFuture[]::new)).join();
    } finally {
      setup.shutdownNow();
    }
  }

  private static String name(int i) {
    return "job-" + i;
  }

  private void succeed(int i) {
    operator.pyTorchPhase(name(i), "Succeeded");
  }

  /** Attaches to every job and starts waiting for each on its own thread. */
  private List<CompletableFuture<JobStatus>> followAll() {
    List<TrainingJob> handles = IntStream.range(0, JOBS).mapToObj(i -> client.attach(name(i)))
        .toList();
    return handles.stream().map(h -> CompletableFuture.supplyAsync(
        () -> h.waitForCompletion(Duration.ofSeconds(240)), pool)).toList();
  }

  private List<AuditLog.Request> requests(User user) {
    return server.audit().since(start, user);
  }

  /** The SDK's requests on the job collection with {@code verb} (list, watch). */
  private List<AuditLog.Request> onJobs(String verb, User user) {
    String jobs = operator.kubeflow("pytorchjobs");
    return requests(user).stream().filter(r -> r.verb().equals(verb) && r.path().equals(jobs))
        .toList();
  }

  /** Every waiter has read its job (after subscribing), and the shared watch is open. */
  private void awaitAllFollowing() {
    String jobs = operator.kubeflow("pytorchjobs") + "/";
    PlayedOperator.await("every wait subscribed", () -> {
      List<AuditLog.Request> requests = requests(User.SDK);
      // attach() reads each job once, the wait a second time: two GETs per job.
      Map<String, Long> reads = requests.stream()
          .filter(r -> r.verb().equals("get") && r.path().startsWith(jobs))
          .collect(Collectors.groupingBy(AuditLog.Request::path, Collectors.counting()));
      return reads.size() >= JOBS && reads.values().stream().allMatch(n -> n >= 2)
          && !onJobs("watch", User.SDK).isEmpty();
    });
  }

  private static List<Integer> shuffledOrder(long seed) {
    List<Integer> order = new ArrayList<>(IntStream.range(0, JOBS).boxed().toList());
    Collections.shuffle(order, new Random(seed));
    return order;
  }

  private static void assertAllSucceeded(List<CompletableFuture<JobStatus>> waits)
      throws Exception {
    CompletableFuture.allOf(waits.toArray(CompletableFuture[]::new)).get(240, TimeUnit.SECONDS);
    for (int i = 0; i < JOBS; i++) {
      JobStatus status = waits.get(i).get();
      assertThat(status.phase()).isEqualTo(JobPhase.SUCCEEDED);
      assertThat(status.name()).isEqualTo(name(i));
    }
  }

  @Test
  void twoHundredWaitsShareOneWatch() throws Exception {
    // One Master pod each, as the operator creates: a job without pods costs a second pod list
    // per status read (the pre-1.6 label fallback).
    onShared(JOBS, true);
    int attachRequests = JOBS; // one GET per attach
    List<CompletableFuture<JobStatus>> waits = followAll();
    awaitAllFollowing();
    assertThat(waits).noneMatch(CompletableFuture::isDone);

    for (int i : shuffledOrder(8)) {
      succeed(i);
    }

    assertAllSucceeded(waits);
    List<AuditLog.Request> requests = requests(User.SDK);
    assertThat(onJobs("watch", User.SDK)).hasSize(1);
    assertThat(onJobs("list", User.SDK)).hasSize(1);
    double perJob = (requests.size() - attachRequests) / (double) JOBS;
    System.out.println("shared watch: " + requests.size() + " requests for " + JOBS
        + " jobs (" + perJob + " per job for waiting), " + onJobs("watch", User.SDK).size()
        + " watch(es)");
    // One read of the job and one pod list at the end, plus a share of the single list and
    // watch: bounded per job, not growing with the number of jobs.
    assertThat(perJob).isLessThanOrEqualTo(2.1);
    // The shared watch's thread ends with its last waiter.
    PlayedOperator.await("the shared watch's thread ends", () -> Thread.getAllStackTraces()
        .keySet().stream().noneMatch(t -> t.getName().startsWith("fairing4j-watch-")));
  }

  @Test
  void twoRestartsOneAfterCompactionInTheMiddleAreSurvived() throws Exception {
    // The watch cache off, so the watch reads etcd: it resumes after the first restart where it
    // stopped, and is answered 410 after the second, which follows a compaction. A restarted
    // server with its cache on answers any older version with 410 anyway.
    dedicated = KubeApiServer.start(List.of("--watch-cache=false"));
    String ns = dedicated.createNamespace("restarts");
    jobs(dedicated, ns, dedicated.kubeconfig(User.SDK, ns), JOBS, false);
    List<CompletableFuture<JobStatus>> waits = followAll();
    awaitAllFollowing();
    List<Integer> order = shuffledOrder(42);

    for (int k = 0; k < JOBS; k++) {
      if (k == 70) {
        dedicated.restartApiServer(); // drops the shared watch
      }
      if (k == 140) {
        // Changes the shared watch does not see, then compacted: the version it resumes from
        // is gone when the server is back.
        operator.post("/api/v1/namespaces/" + ns + "/configmaps", "{\"apiVersion\":\"v1\","
            + "\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"unwatched\"}}");
        operator.mergePatch("/api/v1/namespaces/" + ns + "/configmaps/unwatched",
            "{\"data\":{\"again\":\"1\"}}");
        dedicated.stopApiServer();
        dedicated.compactEtcd();
        dedicated.startApiServer();
      }
      succeed(order.get(k));
    }

    assertAllSucceeded(waits);
    List<AuditLog.Request> watches = onJobs("watch", User.SDK);
    List<AuditLog.Request> lists = onJobs("list", User.SDK);
    String seen = "watches " + watches.stream().map(w -> w.status() + " "
        + WatchedWaitIT.query(w).get("resourceVersion")).toList() + ", lists "
        + lists.stream().map(AuditLog.Request::status).toList();
    System.out.println("with two restarts: " + seen);
    // Served: the first watch, its resumption after the first restart, the resumption after
    // the second (answered with an ERROR 410), and one after the relist that 410 forces. A
    // resumption may also reach the old server while it shuts down (once per restart), and the
    // 503s of a restarting server come on top, a few a second; one watch per job (200) is what
    // this guards against.
    assertThat(watches).as(seen).filteredOn(w -> w.status() == 200).hasSizeBetween(4, 8);
    assertThat(lists).as(seen).filteredOn(l -> l.status() == 200).hasSizeBetween(2, 4);
    assertThat(watches).as(seen).allSatisfy(w -> assertThat(w.status()).isIn(200, 429, 503));
  }

  @Test
  void aJobDeletedWhileFollowedEndsItsWaitWithNotFound() throws Exception {
    onShared(JOBS, false);
    List<CompletableFuture<JobStatus>> waits = followAll();
    awaitAllFollowing();

    operator.delete(operator.kubeflow("pytorchjobs") + "/" + name(7));
    for (int i : shuffledOrder(3)) {
      if (i != 7) {
        succeed(i);
      }
    }

    CompletableFuture<JobStatus> deleted = waits.get(7);
    assertThat(deleted).failsWithin(Duration.ofSeconds(60)).withThrowableOfType(
        java.util.concurrent.ExecutionException.class).havingCause()
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> assertThat(e.problem())
            .isEqualTo(KubernetesApiException.Problem.NOT_FOUND));
    for (int i = 0; i < JOBS; i++) {
      if (i != 7) {
        assertThat(waits.get(i).get(120, TimeUnit.SECONDS).phase())
            .isEqualTo(JobPhase.SUCCEEDED);
      }
    }
    assertThat(onJobs("watch", User.SDK)).hasSize(1);
  }

  @Test
  void aWatchDeniedByRbacFallsBackToFollowingEachJobAlone() throws Exception {
    String ns = K8S.namespace();
    operator = new PlayedOperator(K8S.server(), ns);
    operator.post("/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/roles", """
        {"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"no-watch"},
         "rules":[{"apiGroups":["kubeflow.org"],"resources":["pytorchjobs","tfjobs"],
                   "verbs":["get","list"]},
                  {"apiGroups":["batch"],"resources":["jobs"],"verbs":["get","list"]},
                  {"apiGroups":[""],"resources":["pods","events"],"verbs":["list"]}]}
        """);
    operator.post("/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/rolebindings", """
        {"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",
         "metadata":{"name":"no-watch"},
         "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"no-watch"},
         "subjects":[{"kind":"User","name":"%s"}]}
        """.formatted(User.UNPRIVILEGED.username()));
    jobs(K8S.server(), ns, K8S.kubeconfig(User.UNPRIVILEGED), 5, false);
    List<CompletableFuture<JobStatus>> waits = IntStream.range(0, 5).mapToObj(i -> {
      TrainingJob handle = client.attach(name(i));
      return CompletableFuture.supplyAsync(() -> handle.waitForCompletion(Duration.ofSeconds(60)),
          pool);
    }).toList();
    // The shared watch was denied, then each wait tried a watch of its own.
    PlayedOperator.await("each wait tried its own watch",
        () -> onJobs("watch", User.UNPRIVILEGED).size() >= 6);

    for (int i = 0; i < 5; i++) {
      succeed(i);
    }

    for (CompletableFuture<JobStatus> wait : waits) {
      assertThat(wait.get(60, TimeUnit.SECONDS).phase()).isEqualTo(JobPhase.SUCCEEDED);
    }
    assertThat(onJobs("watch", User.UNPRIVILEGED)).extracting(AuditLog.Request::status)
        .containsOnly(403);
    // Each then polled its job by name.
    assertThat(requests(User.UNPRIVILEGED)).filteredOn(r -> r.line().equals(
        "get " + operator.kubeflow("pytorchjobs") + "/" + name(0))).hasSizeGreaterThan(2);
  }
}
