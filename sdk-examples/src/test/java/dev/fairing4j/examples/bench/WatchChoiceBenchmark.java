package dev.fairing4j.examples.bench;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.AuditLog;
import dev.fairing4j.core.testing.KubeApiServer;
import dev.fairing4j.core.testing.KubeApiServer.User;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.kubernetes.KubernetesCluster;
import io.kubernetes.client.informer.ResourceEventHandler;
import io.kubernetes.client.informer.SharedIndexInformer;
import io.kubernetes.client.informer.SharedInformerFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.generic.GenericKubernetesApi;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesListObject;
import io.kubernetes.client.util.generic.dynamic.DynamicKubernetesObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code scripts/bench.sh watch}: the SDK's own list+watch ({@code ListWatch} behind the shared
 * job watch) against client-java's {@code SharedInformerFactory} over {@code GenericKubernetesApi}
 * with dynamic objects, the library's way to follow a CRD, on a real kube-apiserver, counted from
 * its audit log. Two situations decide the choice:
 * <ul>
 *   <li>{@code jobs} jobs followed to their end, then {@code idle} seconds with nobody waiting:
 *       requests and threads during the waits and after (an informer's watch and threads stay
 *       until someone stops it; the shared watch ends with its last waiter);
 *   <li>a user whose Role lacks the {@code watch} verb, as RBAC set-ups often have: whether the
 *       caller learns of the refusal, whether the wait still ends, and the requests sent in
 *       {@code idle} seconds.
 * </ul>
 *
 * <pre>usage: WatchChoiceBenchmark [jobs (default 20)] [idle seconds (default 20)]</pre>
 */
public final class WatchChoiceBenchmark {
  private static final String IMAGE = "registry.example.com/bench/mnist@sha256:"
      + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

  private WatchChoiceBenchmark() {}

  /** Runs both situations both ways on a fresh API server and prints their figures. */
  public static void main(String[] args) throws Exception {
    int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 20;
    int idle = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    try (KubeApiServer server = KubeApiServer.start()) {
      follow(server, "sdk", jobs, idle, false);
      follow(server, "informer", jobs, idle, true);
      refused(server, "sdk", idle, false);
      refused(server, "informer", idle, true);
    }
    System.exit(0);
  }

  private static void follow(KubeApiServer server, String way, int count, int idle,
      boolean informer) throws Exception {
    String ns = server.createNamespace("follow-" + way);
    String jobs = "/apis/kubeflow.org/v1/namespaces/" + ns + "/pytorchjobs";
    KubernetesCluster cluster = Clusters.kubernetes().kubeconfig(server.kubeconfig(User.SDK, ns));
    int threadsBefore = Thread.activeCount();
    List<TrainingJob> handles = new ArrayList<>();
    List<Thread> operators = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String name = "job-" + i;
      operators.add(ApiBenchmark.play(server, jobs + "/" + name, Duration.ofMillis(500)));
      handles.add(Deployers.pyTorchJob(name).workers(1).on(cluster).asDeployer()
          .deploy(BuildContext.empty().withCommand(List.of("python", "/app/train.py")),
              Optional.of(ImageRef.parse(IMAGE)), ProgressListener.NONE));
    }
    AuditLog.Mark waits = server.audit().mark();
    SharedInformerFactory factory = null;
    long started = System.nanoTime();
    int succeeded;
    if (informer) {
      // An informer refuses a client with a read timeout (it reads its watch without one).
      ApiClient client = server.apiClient(User.SDK).setReadTimeout(0);
      factory = new SharedInformerFactory(client);
      succeeded = informerWait(factory, client, ns, count);
    } else {
      List<CompletableFuture<JobStatus>> ends = handles.stream().map(job ->
          CompletableFuture.supplyAsync(() -> job.waitForCompletion(Duration.ofMinutes(1))))
          .toList();
      succeeded = (int) ends.stream().map(CompletableFuture::join)
          .filter(s -> s.phase() == JobPhase.SUCCEEDED).count();
    }
    long waitMillis = (System.nanoTime() - started) / 1_000_000;
    for (Thread operator : operators) {
      operator.join();
    }
    List<AuditLog.Request> during = server.audit().since(waits, User.SDK);
    AuditLog.Mark quiet = server.audit().mark();
    Thread.sleep(TimeUnit.SECONDS.toMillis(idle));
    List<AuditLog.Request> after = server.audit().since(quiet, User.SDK);
    int threadsAfter = Thread.activeCount();
    long openWatches = openWatches(server, ns);
    System.out.printf(Locale.ROOT, "bench.watch.%s.follow: jobs=%d succeeded=%d wait_ms=%d"
        + " requests=%d (lists %d, watches %d); idle_%ds: requests=%d watches_open=%d"
        + " threads_added=%d%n", way, count, succeeded, waitMillis, during.size(),
        count(during, "list"), count(during, "watch"), idle, after.size(), openWatches,
        threadsAfter - threadsBefore);
    if (factory != null) {
      factory.stopAllRegisteredInformers();
    }
  }

  /** Waits with an informer until {@code count} jobs have a Succeeded condition. */
  private static int informerWait(SharedInformerFactory factory, ApiClient client, String ns,
      int count) throws InterruptedException {
    CountDownLatch done = new CountDownLatch(count);
    java.util.Set<String> seen = java.util.concurrent.ConcurrentHashMap.newKeySet();
    informSucceeded(factory, client, ns, null, name -> {
      if (seen.add(name)) {
        done.countDown();
      }
    });
    done.await(1, TimeUnit.MINUTES);
    return count - (int) done.getCount();
  }

  /**
   * Starts an informer of {@code factory} on the PyTorchJobs of {@code ns}, the library's way to
   * follow a CRD without generated models, handing {@code succeeded} the name of every job it
   * sees added or updated with a Succeeded condition. {@code errors}, when given, is the
   * library's hook for list and watch failures (the only way a caller hears of them); without
   * it the library logs them.
   */
  private static void informSucceeded(SharedInformerFactory factory, ApiClient client, String ns,
      java.util.function.BiConsumer<Class<DynamicKubernetesObject>, Throwable> errors,
      java.util.function.Consumer<String> succeeded) {
    GenericKubernetesApi<DynamicKubernetesObject, DynamicKubernetesListObject> api =
        new GenericKubernetesApi<>(DynamicKubernetesObject.class,
            DynamicKubernetesListObject.class, "kubeflow.org", "v1", "pytorchjobs", client);
    SharedIndexInformer<DynamicKubernetesObject> informer = errors == null
        ? factory.sharedIndexInformerFor(api, DynamicKubernetesObject.class, 0, ns)
        : factory.sharedIndexInformerFor(api, DynamicKubernetesObject.class, 0, ns, errors);
    informer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(DynamicKubernetesObject object) {
        check(object);
      }

      @Override
      public void onUpdate(DynamicKubernetesObject before, DynamicKubernetesObject object) {
        check(object);
      }

      @Override
      public void onDelete(DynamicKubernetesObject object, boolean unknown) {}

      private void check(DynamicKubernetesObject object) {
        if (object.getRaw().toString().contains("\"type\":\"Succeeded\"")) {
          succeeded.accept(object.getMetadata().getName());
        }
      }
    });
    factory.startAllRegisteredInformers();
  }

  private static void refused(KubeApiServer server, String way, int idle, boolean informer)
      throws Exception {
    String ns = server.createNamespace("refused-" + way);
    String jobs = "/apis/kubeflow.org/v1/namespaces/" + ns + "/pytorchjobs";
    server.request("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns + "/roles",
        Map.of("apiVersion", "rbac.authorization.k8s.io/v1", "kind", "Role",
            "metadata", Map.of("name", "no-watch"),
            "rules", List.of(Map.of("apiGroups", List.of("kubeflow.org"),
                "resources", List.of("pytorchjobs"), "verbs", List.of("get", "list", "create")),
                Map.of("apiGroups", List.of(""), "resources",
                    List.of("pods", "events", "services"), "verbs",
                    List.of("get", "list", "create", "patch")))));
    server.request("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/" + ns
        + "/rolebindings", Map.of("apiVersion", "rbac.authorization.k8s.io/v1",
            "kind", "RoleBinding", "metadata", Map.of("name", "no-watch"),
            "roleRef", Map.of("apiGroup", "rbac.authorization.k8s.io", "kind", "Role",
                "name", "no-watch"),
            "subjects", List.of(Map.of("kind", "User",
                "name", User.UNPRIVILEGED.username()))));
    KubernetesCluster cluster = Clusters.kubernetes().kubeconfig(server.kubeconfig(User.SDK, ns));
    // played after idle seconds, so the window shows what each way sends while it waits
    Thread operator = ApiBenchmark.play(server, jobs + "/refused",
        Duration.ofSeconds(idle));
    Deployers.pyTorchJob("refused").workers(1).on(cluster).asDeployer()
        .deploy(BuildContext.empty().withCommand(List.of("python", "/app/train.py")),
            Optional.of(ImageRef.parse(IMAGE)), ProgressListener.NONE);
    AuditLog.Mark mark = server.audit().mark();
    AtomicInteger errorsToCaller = new AtomicInteger();
    String outcome;
    long started = System.nanoTime();
    if (informer) {
      ApiClient client = server.apiClient(User.UNPRIVILEGED).setReadTimeout(0);
      SharedInformerFactory factory = new SharedInformerFactory(client);
      CountDownLatch done = new CountDownLatch(1);
      informSucceeded(factory, client, ns, (type, error) -> errorsToCaller.incrementAndGet(),
          name -> done.countDown());
      outcome = done.await(idle + 30L, TimeUnit.SECONDS) ? "SUCCEEDED" : "no end seen";
      factory.stopAllRegisteredInformers();
    } else {
      KubernetesCluster limited = Clusters.kubernetes()
          .kubeconfig(server.kubeconfig(User.UNPRIVILEGED, ns));
      try {
        outcome = dev.fairing4j.deployer.TrainingClient.connect(limited).attach("refused")
            .waitForCompletion(Duration.ofSeconds(idle + 30L)).phase().toString();
      } catch (RuntimeException e) {
        errorsToCaller.incrementAndGet();
        outcome = e.getClass().getSimpleName();
      }
    }
    long millis = (System.nanoTime() - started) / 1_000_000;
    operator.join();
    List<AuditLog.Request> sent = server.audit().since(mark, User.UNPRIVILEGED);
    System.out.printf(Locale.ROOT, "bench.watch.%s.refused: outcome=%s after_ms=%d"
        + " requests=%d (watch %d, of them 403 %d; lists %d; gets %d) errors_to_caller=%d%n",
        way, outcome, millis, sent.size(), count(sent, "watch"),
        sent.stream().filter(r -> r.verb().equals("watch") && r.status() == 403).count(),
        count(sent, "list"), count(sent, "get"), errorsToCaller.get());
  }

  private static long count(List<AuditLog.Request> requests, String verb) {
    return requests.stream().filter(r -> r.verb().equals(verb)).count();
  }

  /** Watches still open on {@code ns}: the API server's own gauge, by scraping /metrics. */
  private static long openWatches(KubeApiServer server, String ns) {
    String metrics = server.send("GET", "/metrics", null).body();
    return metrics.lines().filter(l -> l.startsWith("apiserver_longrunning_requests{")
        && l.contains("resource=\"pytorchjobs\"") && l.contains("verb=\"WATCH\""))
        .mapToLong(l -> (long) Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
  }
}
