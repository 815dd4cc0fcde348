package dev.fairing4j.examples.bench;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.AuditLog;
import dev.fairing4j.core.testing.KubeApiServer;
import dev.fairing4j.core.testing.KubeApiServer.User;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.TrainingClient;
import dev.fairing4j.deployer.kubernetes.KubernetesCluster;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code scripts/bench.sh api}: how many requests the SDK sends a real kube-apiserver (v1.32, from
 * {@code FAIRING4J_K8S}) to submit a PyTorchJob and wait until it succeeds, counted from the
 * server's audit log, and how many watches {@code waits} concurrent waits open. A thread plays
 * the Kubeflow operator (Created, Running, Succeeded through the status subresource, as a
 * user the audit log leaves out), so only the SDK's requests are counted.
 *
 * <pre>usage: ApiBenchmark [waits (default 200)]</pre>
 *
 * <p>Prints {@code bench.api.requests_submit_wait} (target at most 4), each of those requests,
 * and {@code bench.api.shared_watch.watch_requests} for the concurrent waits (target 1).
 */
public final class ApiBenchmark {
  private static final int TARGET_REQUESTS = 4;
  private static final String IMAGE = "registry.example.com/bench/mnist@sha256:"
      + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

  private ApiBenchmark() {}

  /** Runs both measurements on a fresh API server and prints their figures. */
  public static void main(String[] args) throws Exception {
    int waits = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    try (KubeApiServer server = KubeApiServer.start()) {
      String ns = server.createNamespace("bench");
      KubernetesCluster cluster = Clusters.kubernetes().kubeconfig(server.kubeconfig(User.SDK,
          ns));
      submitAndWait(server, ns, cluster);
      sharedWatch(server, ns, cluster, waits);
    }
    System.exit(0);
  }

  private static void submitAndWait(KubeApiServer server, String ns, KubernetesCluster cluster)
      throws Exception {
    String jobs = "/apis/kubeflow.org/v1/namespaces/" + ns + "/pytorchjobs";
    Thread operator = play(server, jobs + "/bench", Duration.ofMillis(300));
    AuditLog.Mark mark = server.audit().mark();
    long start = System.nanoTime();
    TrainingJob job = Deployers.pyTorchJob("bench").workers(1).on(cluster)
        .asDeployer().deploy(BuildContext.empty().withCommand(List.of("python", "/app/train.py")),
            Optional.of(ImageRef.parse(IMAGE)), ProgressListener.NONE);
    JobPhase phase = job.waitForCompletion(Duration.ofMinutes(1)).phase();
    long millis = (System.nanoTime() - start) / 1_000_000;
    operator.join();
    List<AuditLog.Request> requests = server.audit().since(mark, User.SDK);
    System.out.printf("bench.api.submit_wait.phase=%s%n", phase);
    System.out.printf("bench.api.submit_wait.ms=%d%n", millis);
    System.out.printf("bench.api.requests_submit_wait=%d target<=%d %s%n", requests.size(),
        TARGET_REQUESTS, requests.size() <= TARGET_REQUESTS ? "PASS" : "MISS");
    for (int i = 0; i < requests.size(); i++) {
      System.out.printf("bench.api.request.%d=%s %s%n", i + 1, requests.get(i).line(),
          requests.get(i).status());
    }
  }

  private static void sharedWatch(KubeApiServer server, String ns, KubernetesCluster cluster,
      int waits) throws Exception {
    String jobs = "/apis/kubeflow.org/v1/namespaces/" + ns + "/pytorchjobs";
    for (int i = 0; i < waits; i++) {
      server.request("POST", jobs, Map.of("apiVersion", "kubeflow.org/v1", "kind", "PyTorchJob",
          "metadata", Map.of("name", "wait-" + i,
              "labels", Map.of("app.kubernetes.io/managed-by", "fairing4j")),
          "spec", Map.of("pytorchReplicaSpecs", Map.of())));
      status(server, jobs + "/wait-" + i, "Running");
    }
    TrainingClient client = TrainingClient.connect(cluster).inNamespace(ns);
    AuditLog.Mark mark = server.audit().mark();
    ExecutorService pool = Executors.newFixedThreadPool(waits);
    List<Future<JobPhase>> done = new ArrayList<>();
    for (int i = 0; i < waits; i++) {
      TrainingJob job = client.attach("wait-" + i);
      done.add(pool.submit(() -> job.waitForCompletion(Duration.ofMinutes(2)).phase()));
    }
    Thread.sleep(1000);
    for (int i = 0; i < waits; i++) {
      status(server, jobs + "/wait-" + i, "Succeeded");
    }
    int succeeded = 0;
    for (Future<JobPhase> phase : done) {
      succeeded += phase.get() == JobPhase.SUCCEEDED ? 1 : 0;
    }
    pool.shutdownNow();
    List<AuditLog.Request> requests = server.audit().since(mark, User.SDK);
    long watches = requests.stream().filter(r -> r.verb().equals("watch")).count();
    System.out.printf("bench.api.shared_watch.waits=%d succeeded=%d%n", waits, succeeded);
    System.out.printf("bench.api.shared_watch.watch_requests=%d target<=1 %s%n", watches,
        watches <= 1 ? "PASS" : "MISS");
    System.out.printf("bench.api.shared_watch.requests_per_job=%.2f%n",
        requests.size() / (double) waits);
  }

  /**
   * Plays the operator for one job: Created and Running once it exists, then Succeeded after
   * {@code running} (also the soak benchmark's operator).
   */
  static Thread play(KubeApiServer server, String job, Duration running) {
    Thread thread = new Thread(() -> {
      Instant deadline = Instant.now().plusSeconds(60);
      while (server.send("GET", job, null).status() != 200) {
        if (Instant.now().isAfter(deadline)) {
          return;
        }
        sleep(Duration.ofMillis(20));
      }
      status(server, job, "Running");
      sleep(running);
      status(server, job, "Succeeded");
    }, "played-operator");
    thread.start();
    return thread;
  }

  private static void status(KubeApiServer server, String job, String phase) {
    List<Map<String, Object>> conditions = new ArrayList<>();
    conditions.add(condition("Created", "True"));
    if (phase.equals("Running")) {
      conditions.add(condition("Running", "True"));
    } else {
      conditions.add(condition("Running", "False"));
      conditions.add(condition("Succeeded", "True"));
    }
    server.send(User.FIXTURE, "PATCH", job + "/status", Map.of("status",
        Map.of("conditions", conditions)), "application/merge-patch+json");
  }

  private static Map<String, Object> condition(String type, String status) {
    String now = Instant.now().toString();
    return Map.of("type", type, "status", status, "reason", "PyTorchJob" + type,
        "message", "", "lastUpdateTime", now, "lastTransitionTime", now);
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
