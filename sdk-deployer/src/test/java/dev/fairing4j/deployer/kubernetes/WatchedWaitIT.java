package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.JobFailedException;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.JobTimeoutException;
import dev.fairing4j.core.OnTimeout;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.testing.AuditLog;
import dev.fairing4j.core.testing.KubeApiServer.User;
import dev.fairing4j.core.testing.KubeApiServer;
import dev.fairing4j.core.testing.RealKubernetes;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.job.internal.JsonTree;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * waitForCompletion driven by a real watch on a real API server, the test playing the operator
 * ({@link PlayedOperator}) on a job without the SDK's label, so each wait runs a watch of its
 * own: it ends on the terminal condition the watch delivers; a watch dropped by an API-server
 * restart is resumed from the last resourceVersion (through the 503s of the restarting server);
 * a 410 Gone (an ERROR event for a resourceVersion etcd compacted away) leads to a relist, which
 * may itself carry the terminal condition; failures and timeouts, a timeout's DELETE (carried
 * out by the garbage collector of kube-controller-manager) and SUSPEND; and the polling
 * fallback when RBAC denies the {@code watch} verb.
 *
 * <p>Restarts and compaction run on a server of this class's own, with the watch cache off so
 * that a watch reads etcd: a resumed watch then continues where it stopped (with the cache, a
 * restarted server answers any older version with 410) and a compacted version is answered
 * 410 on demand.
 */
@Timeout(180)
class WatchedWaitIT {
  @RegisterExtension
  static final RealKubernetes K8S = RealKubernetes.shared().withControllers();

  private static KubeApiServer restartable;

  private final List<ProgressEvent> events = new CopyOnWriteArrayList<>();

  @BeforeAll
  static void startRestartableServer() {
    // The watch cache off, so a watch reads etcd directly and compaction answers it 410.
    restartable = KubeApiServer.start(List.of("--watch-cache=false"));
  }

  @AfterAll
  static void stopRestartableServer() {
    if (restartable != null) {
      restartable.close();
    }
  }

  /** A job followed on {@code server} in namespace {@code ns}, and what its wait asked. */
  private final class Followed {
    final KubeApiServer server;
    final PlayedOperator operator;
    final String collection;
    final KubernetesTrainingJob handle;
    final AuditLog.Mark start;

    Followed(KubeApiServer server, String ns, Path kubeconfig, ProgressListener listener) {
      this.server = server;
      this.operator = new PlayedOperator(server, ns);
      this.collection = operator.kubeflow("pytorchjobs");
      operator.pyTorchJob("mnist", 0, false);
      this.start = server.audit().mark();
      this.handle = Clusters.kubernetes().kubeconfig(kubeconfig).withTimings(TestJobs.FAST)
          .attach("kubeflow.org/v1", "PyTorchJob", "mnist", ns, e -> {
            events.add(e);
            listener.onEvent(e);
          });
    }

    void phase(String phase) {
      operator.pyTorchPhase("mnist", phase);
    }

    /** The SDK's requests on the job collection with {@code verb} (list, watch). */
    List<AuditLog.Request> onCollection(String verb, User user) {
      return server.audit().since(start, user).stream()
          .filter(r -> r.verb().equals(verb) && r.path().equals(collection)).toList();
    }

    List<AuditLog.Request> onCollection(String verb) {
      return onCollection(verb, User.SDK);
    }

    /** Waits on a thread of its own (the common pool may have a single thread here). */
    CompletableFuture<JobStatus> waitInBackground() {
      return CompletableFuture.supplyAsync(() -> handle.waitForCompletion(Duration.ofSeconds(90)),
          task -> new Thread(task, "wait-" + collection).start());
    }
  }

  private Followed onShared(ProgressListener listener) {
    return new Followed(K8S.server(), K8S.namespace(), K8S.kubeconfig(), listener);
  }

  private Followed onRestartable(String name, ProgressListener listener) {
    String ns = restartable.createNamespace(name);
    return new Followed(restartable, ns, restartable.kubeconfig(User.SDK, ns), listener);
  }

  private List<JobPhase> phases() {
    return events.stream().filter(ProgressEvent.PhaseChanged.class::isInstance)
        .map(e -> ((ProgressEvent.PhaseChanged) e).current()).toList();
  }

  static Map<String, String> query(AuditLog.Request request) {
    Map<String, String> query = new LinkedHashMap<>();
    int q = request.uri().indexOf('?');
    if (q >= 0) {
      for (String pair : request.uri().substring(q + 1).split("&")) {
        int eq = pair.indexOf('=');
        query.put(URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8),
            eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return query;
  }

  private static String version(Map<String, Object> object) {
    return JsonTree.string(object, "metadata", "resourceVersion").orElseThrow();
  }

  @Test
  void aWatchDroppedByARestartIsResumedFromTheLastResourceVersion() throws Exception {
    Followed job = onRestartable("dropped", e -> { });
    job.phase("Created");
    CompletableFuture<JobStatus> wait = job.waitInBackground();
    PlayedOperator.await("the wait watches", () -> !job.onCollection("watch").isEmpty());
    String running = version(job.operator.mergePatch(job.collection + "/mnist/status",
        "{\"status\":{\"conditions\":[" + PlayedOperator.conditions("PyTorchJob", "mnist",
            "Running") + "]}}"));
    PlayedOperator.await("the watch delivered Running", () -> phases().contains(JobPhase.RUNNING));

    restartable.stopApiServer();
    restartable.startApiServer();
    job.phase("Succeeded"); // as soon as the restarted server takes it

    assertThat(wait.get(90, TimeUnit.SECONDS).phase()).isEqualTo(JobPhase.SUCCEEDED);
    List<AuditLog.Request> watches = job.onCollection("watch");
    String requests = job.server.audit().since(job.start, User.SDK).toString();
    assertThat(watches).as(requests).hasSizeGreaterThanOrEqualTo(2);
    Map<String, String> first = query(watches.get(0));
    assertThat(first.get("fieldSelector")).isEqualTo("metadata.name=mnist");
    assertThat(first.get("allowWatchBookmarks")).isEqualTo("true");
    assertThat(first.get("resourceVersion")).isNotEmpty();
    // Every resumption asks from the version of the last event seen: nothing is replayed twice.
    assertThat(watches.subList(1, watches.size())).as(requests)
        .allSatisfy(w -> assertThat(query(w).get("resourceVersion")).isEqualTo(running));
    assertThat(watches.get(watches.size() - 1).status()).isEqualTo(200);
    assertThat(job.onCollection("list")).as(requests).hasSize(1);
    assertThat(phases()).containsExactly(JobPhase.CREATED, JobPhase.RUNNING, JobPhase.SUCCEEDED);
    System.out.println("resumed after a restart: watches answered "
        + watches.stream().map(AuditLog.Request::status).toList());
  }

  @Test
  void a410GoneIsFollowedByARelistThatCarriesTheTerminalCondition() {
    AtomicBoolean once = new AtomicBoolean();
    AtomicLong compacted = new AtomicLong();
    Followed[] job = new Followed[1];
    // Called by the wait itself after its first list and before its watch: the job succeeds
    // and that change is compacted away, so the watch from the list's version gets 410.
    job[0] = onRestartable("gone", e -> {
      if (once.compareAndSet(false, true)) {
        job[0].phase("Succeeded");
        job[0].operator.post("/api/v1/namespaces/" + job[0].operator.namespace()
            + "/configmaps", "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
            + "\"metadata\":{\"name\":\"later-change\"}}");
        compacted.set(restartable.compactEtcd());
      }
    });
    job[0].phase("Running");

    JobStatus end = job[0].handle.waitForCompletion(Duration.ofSeconds(60));

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    List<AuditLog.Request> watches = job[0].onCollection("watch");
    assertThat(watches).hasSize(1);
    assertThat(Long.parseLong(query(watches.get(0)).get("resourceVersion")))
        .isLessThan(compacted.get());
    assertThat(job[0].onCollection("list")).hasSize(2);
    assertThat(phases()).containsExactly(JobPhase.RUNNING, JobPhase.SUCCEEDED);
  }

  @Test
  void anErrorEventWith410RelistsAndWatchesFromTheNewVersion() throws Exception {
    AtomicBoolean once = new AtomicBoolean();
    AtomicLong compacted = new AtomicLong();
    Followed[] job = new Followed[1];
    job[0] = onRestartable("relist", e -> {
      if (once.compareAndSet(false, true)) {
        for (int i = 0; i < 2; i++) {
          job[0].operator.post("/api/v1/namespaces/" + job[0].operator.namespace()
              + "/configmaps", "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\","
              + "\"metadata\":{\"name\":\"later-change-" + i + "\"}}");
        }
        compacted.set(restartable.compactEtcd());
      }
    });
    job[0].phase("Running");
    CompletableFuture<JobStatus> wait = job[0].waitInBackground();
    PlayedOperator.await("a watch after the relist",
        () -> job[0].onCollection("watch").size() >= 2);

    job[0].phase("Succeeded");

    assertThat(wait.get(60, TimeUnit.SECONDS).phase()).isEqualTo(JobPhase.SUCCEEDED);
    List<AuditLog.Request> watches = job[0].onCollection("watch");
    assertThat(watches).hasSize(2);
    assertThat(Long.parseLong(query(watches.get(0)).get("resourceVersion")))
        .isLessThan(compacted.get());
    assertThat(Long.parseLong(query(watches.get(1)).get("resourceVersion")))
        .isGreaterThanOrEqualTo(compacted.get());
    assertThat(job[0].onCollection("list")).hasSize(2);
    assertThat(phases()).containsExactly(JobPhase.RUNNING, JobPhase.SUCCEEDED);
  }

  @Test
  void aFailedJobThrowsWithTheOperatorsMessage() {
    Followed job = onShared(e -> { });
    job.phase("Running");
    CompletableFuture<JobStatus> wait = job.waitInBackground();
    PlayedOperator.await("the wait watches", () -> !job.onCollection("watch").isEmpty());

    job.phase("Failed");

    assertThat(wait).failsWithin(Duration.ofSeconds(60))
        .withThrowableOfType(java.util.concurrent.ExecutionException.class).havingCause()
        .isInstanceOfSatisfying(JobFailedException.class, e -> {
          assertThat(e.status().phase()).isEqualTo(JobPhase.FAILED);
          assertThat(e.getMessage()).contains("1 Master replica(s) failed");
        });
    assertThat(phases()).containsExactly(JobPhase.RUNNING, JobPhase.FAILED);
  }

  @Test
  void aTimeoutLeavesTheJobRunningByDefault() {
    Followed job = onShared(e -> { });
    job.phase("Running");
    long start = System.nanoTime();

    assertThatThrownBy(() -> job.handle.waitForCompletion(Duration.ofMillis(600)))
        .isInstanceOfSatisfying(JobTimeoutException.class, e -> {
          assertThat(e.lastStatus().phase()).isEqualTo(JobPhase.RUNNING);
          assertThat(e.timeout()).isEqualTo(Duration.ofMillis(600));
        });

    // Ended by the caller's deadline, not by the server's watch timeout (minutes).
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
    assertThat(K8S.requests()).extracting(AuditLog.Request::verb)
        .containsOnly("get", "list", "watch");
    Map<String, Object> stored = job.operator.get(job.collection + "/mnist").orElseThrow();
    assertThat(JsonTree.at(stored, "metadata", "deletionTimestamp")).isEmpty();
    assertThat(JsonTree.at(stored, "spec", "runPolicy", "suspend")).isNotEqualTo(Optional.of(true));
  }

  @Test
  void aTimeoutCanDeleteTheJob() {
    Followed job = onShared(e -> { });
    job.phase("Running");

    assertThatThrownBy(() -> job.handle.waitForCompletion(Duration.ofMillis(600),
        OnTimeout.DELETE)).isInstanceOfSatisfying(JobTimeoutException.class,
            e -> assertThat(e.getMessage()).contains("deleted it"));

    assertThat(K8S.requestLines()).contains("delete " + job.collection + "/mnist");
    assertThat(job.operator.get(job.collection + "/mnist")).isEmpty();
  }

  @Test
  void aTimeoutCanSuspendTheJob() {
    Followed job = onShared(e -> { });
    job.phase("Running");

    assertThatThrownBy(() -> job.handle.waitForCompletion(Duration.ofMillis(600),
        OnTimeout.SUSPEND)).isInstanceOfSatisfying(JobTimeoutException.class,
            e -> assertThat(e.getMessage()).contains("suspended it"));

    assertThat(K8S.requestLines()).contains("patch " + job.collection + "/mnist")
        .noneMatch(l -> l.startsWith("delete "));
    Map<String, Object> stored = job.operator.get(job.collection + "/mnist").orElseThrow();
    assertThat(JsonTree.at(stored, "spec", "runPolicy", "suspend")).contains(true);
    assertThat(JsonTree.at(stored, "metadata", "deletionTimestamp")).isEmpty();
  }

  @Test
  void aWatchDeniedByRbacFallsBackToPolling() throws Exception {
    String ns = K8S.namespace();
    PlayedOperator setup = new PlayedOperator(K8S.server(), ns);
    // Reads, but no watch: a Role written without the watch verb.
    setup.post("/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/roles", """
        {"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"no-watch"},
         "rules":[{"apiGroups":["kubeflow.org"],"resources":["pytorchjobs"],"verbs":["get","list"]},
                  {"apiGroups":[""],"resources":["pods","events"],"verbs":["list"]}]}
        """);
    setup.post("/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/rolebindings", """
        {"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",
         "metadata":{"name":"no-watch"},
         "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"no-watch"},
         "subjects":[{"kind":"User","name":"%s"}]}
        """.formatted(User.UNPRIVILEGED.username()));
    Followed job = new Followed(K8S.server(), ns, K8S.kubeconfig(User.UNPRIVILEGED), e -> { });
    job.phase("Running");
    CompletableFuture<JobStatus> wait = job.waitInBackground();
    PlayedOperator.await("the denied watch", () ->
        !job.onCollection("watch", User.UNPRIVILEGED).isEmpty());

    job.phase("Succeeded");

    assertThat(wait.get(60, TimeUnit.SECONDS).phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(job.onCollection("watch", User.UNPRIVILEGED)).singleElement()
        .extracting(AuditLog.Request::status).isEqualTo(403);
    assertThat(job.server.audit().since(job.start, User.UNPRIVILEGED))
        .filteredOn(r -> r.line().equals("get " + job.collection + "/mnist"))
        .isNotEmpty().allSatisfy(r -> assertThat(r.status()).isEqualTo(200));
    assertThat(phases()).containsExactly(JobPhase.RUNNING, JobPhase.SUCCEEDED);
  }
}
