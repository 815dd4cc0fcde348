package dev.fairing4j.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.kubernetes.KubernetesCluster;
import dev.fairing4j.deployer.storage.Volumes;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.opentest4j.AssertionFailedError;

/**
 * The running cluster kit ({@code ../shared/k8s/cluster}: kubelet, containerd, scheduler, DNS,
 * the Kubeflow training operator and the registry {@value #REGISTRY}) that the {@code cluster}
 * suite runs against, found through {@value #KUBECONFIG_ENV}. One per test JVM: every cluster
 * test class shares its namespace, its torch base image and its kubectl.
 *
 * <p>Without {@value #KUBECONFIG_ENV}, or with a kit that does not answer, every cluster test
 * fails with the command that brings the kit up: a suite that was asked for never skips.
 *
 * <p>kubectl is the test's independent eye on the cluster (the SDK under test never uses it): the
 * kit's own, from the {@code env.sh} it writes next to the kubeconfig.
 */
final class ClusterKit {
  /** The variable CI sets to the kit's kubeconfig ({@code .ci/run}, {@code scripts/test.sh}). */
  static final String KUBECONFIG_ENV = "FAIRING4J_CLUSTER_KUBECONFIG";
  /** The kit's plain-HTTP registry, which the node's containerd pulls from. */
  static final String REGISTRY = "127.0.0.1:5055";
  /** Where this suite's jobs run, recreated empty by each test JVM. */
  static final String NAMESPACE = "fairing4j-it";

  /** The label of the volumes {@link #hostPathClaim} makes, so a later run finds leftovers. */
  private static final String VOLUME_LABEL = "fairing4j.dev/it-volume";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(3);
  private static ClusterKit instance;

  private final Path kubeconfig;
  private final Path kubectl;
  private final List<String[]> storage = new ArrayList<>();
  private TorchBaseImage.Pushed base;
  private boolean namespaceReady;

  private ClusterKit(Path kubeconfig, Path kubectl) {
    this.kubeconfig = kubeconfig;
    this.kubectl = kubectl;
  }

  /**
   * The kit of {@value #KUBECONFIG_ENV}, checked once: the API server answers, the node is
   * Ready, the operator's CRDs are served and the registry answers.
   *
   * @throws AssertionFailedError saying how to bring the kit up
   */
  static synchronized ClusterKit get() {
    if (instance != null) {
      return instance;
    }
    String configured = System.getenv(KUBECONFIG_ENV);
    if (configured == null || configured.isBlank()) {
      throw new AssertionFailedError(KUBECONFIG_ENV + " is not set. The cluster suite runs on"
          + " a real single-node Kubernetes cluster with the Kubeflow training operator: bring"
          + " the kit up (as root) and name its kubeconfig: " + howToStart() + ". Or leave the"
          + " suite out: -DexcludedTestTags=gpu,docker,tensorflow,papermill,cluster.");
    }
    Path kubeconfig = Path.of(configured);
    if (!Files.isRegularFile(kubeconfig)) {
      throw new AssertionFailedError(KUBECONFIG_ENV + "=" + configured + " is not a file: is the"
          + " kit up? " + howToStart());
    }
    ClusterKit kit = new ClusterKit(kubeconfig, findKubectl(kubeconfig));
    kit.checkUp();
    Runtime.getRuntime().addShutdownHook(new Thread(kit::cleanUpAtExit,
        "fairing4j-cluster-cleanup"));
    instance = kit;
    return kit;
  }

  private static String howToStart() {
    String kit = Optional.ofNullable(System.getenv("FAIRING4J_K8S")).filter(s -> !s.isBlank())
        .orElse("../shared/k8s");
    return KUBECONFIG_ENV + "=$(" + kit + "/cluster/up.sh | tail -1) scripts/test.sh"
        + " (.ci/run does this and brings the kit down afterwards; " + kit + "/cluster/README.md)";
  }

  private static Path findKubectl(Path kubeconfig) {
    // The kit writes env.sh (KUBECONFIG=... PATH=<its binaries>:$PATH) beside its kubeconfig.
    Path env = kubeconfig.toAbsolutePath().getParent().resolve("env.sh");
    try {
      if (Files.isRegularFile(env)) {
        Matcher path = Pattern.compile("PATH=([^:\\s]+):").matcher(Files.readString(env));
        if (path.find() && Files.isExecutable(Path.of(path.group(1), "kubectl"))) {
          return Path.of(path.group(1), "kubectl");
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Tools.find("kubectl").orElseThrow(() -> new AssertionFailedError("kubectl not found:"
        + " neither in the kit's " + env + " nor on PATH; the kit's cluster/bin.sh prints the"
        + " directory of its kubectl v1.32"));
  }

  private void checkUp() {
    Result ready = run(List.of("get", "--raw", "/readyz"));
    if (ready.status() != 0) {
      throw new AssertionFailedError("the kit's API server does not answer (" + ready.output()
          .strip() + "); is the kit up? " + howToStart());
    }
    JsonNode nodes = json("get", "nodes");
    boolean nodeReady = false;
    for (JsonNode node : nodes.path("items")) {
      for (JsonNode condition : node.path("status").path("conditions")) {
        nodeReady |= condition.path("type").asText().equals("Ready")
            && condition.path("status").asText().equals("True");
      }
    }
    if (!nodeReady) {
      throw new AssertionFailedError("the kit has no Ready node: " + kubectl("get", "nodes")
          + "; restart it: down.sh, then " + howToStart());
    }
    if (run(List.of("get", "crd", "pytorchjobs.kubeflow.org", "tfjobs.kubeflow.org"))
        .status() != 0) {
      throw new AssertionFailedError("the kit serves no Kubeflow CRDs; it was started with"
          + " CRDS= empty? " + howToStart());
    }
    try {
      HttpResponse<Void> registry = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create("http://" + REGISTRY + "/v2/")).timeout(Duration.ofSeconds(10)).build(),
          HttpResponse.BodyHandlers.discarding());
      if (registry.statusCode() != 200) {
        throw new IOException("HTTP " + registry.statusCode());
      }
    } catch (IOException e) {
      throw new AssertionFailedError("the kit's registry " + REGISTRY + " does not answer ("
          + e.getMessage() + "); " + howToStart());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionFailedError("interrupted");
    }
  }

  /** The kit's admin kubeconfig. */
  Path kubeconfig() {
    return kubeconfig;
  }

  /** The kit as the SDK sees it: {@code Clusters.kubernetes().kubeconfig(..)}. */
  KubernetesCluster cluster() {
    return Clusters.kubernetes().kubeconfig(kubeconfig);
  }

  /**
   * {@value #NAMESPACE}, deleted and created again by the first call in a JVM, so nothing an
   * earlier (perhaps killed) run left there is counted as this run's.
   */
  synchronized String namespace() {
    if (!namespaceReady) {
      if (run(List.of("get", "namespace", NAMESPACE)).status() == 0) {
        kubectl("delete", "namespace", NAMESPACE, "--wait=true", "--timeout=180s");
      }
      // Claims elsewhere (kubeflow) hold their volumes; a volume still being deleted would
      // pass for an equal one and then vanish under the new claim.
      for (JsonNode volume : json("get", "pv", "-l", VOLUME_LABEL).path("items")) {
        JsonNode claim = volume.path("spec").path("claimRef");
        if (claim.has("name")) {
          run(List.of("delete", "pvc", "-n", claim.path("namespace").asText(),
              claim.path("name").asText(), "--ignore-not-found", "--wait=true", "--timeout=60s"));
        }
      }
      kubectl("delete", "pv", "-l", VOLUME_LABEL, "--ignore-not-found", "--wait=true",
          "--timeout=120s");
      kubectl("create", "namespace", NAMESPACE);
      namespaceReady = true;
    }
    return NAMESPACE;
  }

  /** The torch base, made once per machine and pushed once per JVM; see {@link TorchBaseImage}. */
  synchronized TorchBaseImage.Pushed base() {
    if (base == null) {
      try {
        base = TorchBaseImage.pushTo(REGISTRY);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      System.out.println("cluster: torch base " + base.reference() + " ("
          + (base.cached() ? "cached" : "made") + " in " + base.made().toMillis() + " ms, pushed"
          + " in " + base.pushed().toMillis() + " ms, " + base.compressedBytes() / (1 << 20)
          + " MiB)");
    }
    return base;
  }

  /**
   * Claim {@code claim} in {@code namespace} bound to a hostPath PersistentVolume on the node's
   * {@code hostPath}, made through {@code Volumes} (the SDK's front door) and waited for until
   * Bound. The volume is named after both (volumes are cluster-wide, a volume binds one claim).
   */
  String hostPathClaim(String namespace, String claim, String hostPath) {
    String volume = "fairing4j-it-" + namespace + "-" + claim;
    Map<String, String> labels = Map.of(VOLUME_LABEL, volume);
    Volumes.on(cluster()).inNamespace(namespace).ensure(
        Volumes.hostPathPersistentVolume(volume, hostPath, "1Gi", List.of("ReadWriteMany"),
            labels),
        Volumes.claim(claim, "1Gi", labels, "").withAccessModes("ReadWriteMany"));
    synchronized (storage) {
      storage.add(new String[] {namespace, claim, volume});
    }
    await("claim " + namespace + "/" + claim + " is Bound", Duration.ofMinutes(1),
        () -> phase("pvc", namespace, claim).equals("Bound"),
        () -> kubectl("get", "pvc", "-n", namespace, claim));
    return claim;
  }

  /**
   * What this JVM made, deleted when it ends: the claims and volumes of {@link #hostPathClaim}
   * and the namespace. Asynchronous, so the JVM does not wait for the kubelet; the next run's
   * {@link #namespace()} waits for them to be gone.
   */
  private void cleanUpAtExit() {
    List<String[]> made;
    synchronized (storage) {
      made = List.copyOf(storage);
      storage.clear();
    }
    for (String[] claim : made) {
      run(List.of("delete", "pvc", "-n", claim[0], claim[1], "--ignore-not-found",
          "--wait=false"));
    }
    // A Retain volume whose claim is gone stays Released and never binds again: both go.
    run(List.of("delete", "pv", "-l", VOLUME_LABEL, "--ignore-not-found", "--wait=false"));
    if (namespaceReady) {
      run(List.of("delete", "namespace", NAMESPACE, "--ignore-not-found", "--wait=false"));
    }
  }

  /** {@code status.phase} of an object, or {@code ""} when it does not exist. */
  String phase(String resource, String namespace, String name) {
    Result result = run(List.of("get", resource, "-n", namespace, name, "-o",
        "jsonpath={.status.phase}"));
    return result.status() == 0 ? result.output().strip() : "";
  }

  /**
   * The kit's registry as pods reach it ({@code $POD_REGISTRY} in the {@code env.sh} beside the
   * kubeconfig, the node IP): a build that runs in a pod pushes there, and pulls bases from it.
   */
  String podRegistry() {
    Path env = kubeconfig.toAbsolutePath().getParent().resolve("env.sh");
    try {
      java.util.regex.Matcher found = java.util.regex.Pattern.compile("POD_REGISTRY=(\\S+)")
          .matcher(Files.readString(env));
      if (found.find()) {
        return found.group(1);
      }
    } catch (IOException e) {
      throw new AssertionFailedError("cannot read " + env + ": " + e + "; " + howToStart());
    }
    throw new AssertionFailedError(env + " names no POD_REGISTRY; " + howToStart());
  }

  /** Where this suite pushes the image of {@code name}. */
  static String repository(String name) {
    return REGISTRY + "/fairing4j-it/" + name;
  }

  /**
   * containerd's per-registry configuration ({@code config_path}): a {@code <host:port>/hosts.toml}
   * here tells the node how to reach a registry.
   */
  Path containerdHosts() {
    Path dir = kubeconfig.toAbsolutePath().getParent().resolve("containerd/certs.d");
    if (!Files.isDirectory(dir)) {
      throw new AssertionFailedError("the kit's containerd registry configuration " + dir
          + " is missing; is this the kit's kubeconfig? " + howToStart());
    }
    return dir;
  }

  /** kubectl's output, or a failure with it. */
  String kubectl(String... args) {
    Result result = run(List.of(args));
    if (result.status() != 0) {
      throw new AssertionFailedError("kubectl " + String.join(" ", args) + " exited with "
          + result.status() + ": " + result.output());
    }
    return result.output();
  }

  /**
   * Waits until the CRD {@code name} is Established. Not {@code kubectl wait}: it fails at once
   * on a CRD created a moment ago, whose status has no conditions yet (seen in CI).
   */
  void waitEstablished(String name) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      for (JsonNode condition : json("get", "crd", name).path("status").path("conditions")) {
        if (condition.path("type").asText().equals("Established")
            && condition.path("status").asText().equals("True")) {
          return;
        }
      }
      if (System.nanoTime() > deadline) {
        throw new AssertionFailedError("CRD " + name + " is not Established after 60 s: "
            + json("get", "crd", name).path("status"));
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionFailedError("interrupted waiting for CRD " + name);
      }
    }
  }

  /** kubectl's {@code -o json} output, parsed. */
  JsonNode json(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("-o", "json"));
    try {
      return JSON.readTree(kubectl(all.toArray(String[]::new)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The names of the objects of {@code resource} in {@code namespace} matching {@code selector}. */
  List<String> names(String resource, String namespace, String selector) {
    List<String> names = new ArrayList<>();
    json("get", resource, "-n", namespace, "-l", selector).path("items")
        .forEach(item -> names.add(item.path("metadata").path("name").asText()));
    return names;
  }

  /**
   * kubectl with the kit's kubeconfig, started and left running (a {@code -w} watch): its
   * standard output is the caller's to read, its errors go to this JVM's. The caller stops it.
   */
  Process start(List<String> args) {
    List<String> command = new ArrayList<>(List.of(kubectl.toString(), "--kubeconfig",
        kubeconfig.toString()));
    command.addAll(args);
    try {
      return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A kubectl run: exit status and output (stdout and stderr). */
  record Result(int status, String output) {}

  /** Runs kubectl with the kit's kubeconfig; a non-zero exit is the caller's to judge. */
  Result run(List<String> args) {
    List<String> command = new ArrayList<>(List.of(kubectl.toString(), "--kubeconfig",
        kubeconfig.toString()));
    command.addAll(args);
    try {
      Path out = Files.createTempFile("fairing4j-kubectl", ".out");
      try {
        Process p = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(out.toFile()).start();
        if (!p.waitFor(COMMAND_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
          p.destroyForcibly();
          throw new AssertionFailedError("kubectl " + String.join(" ", args)
              + " did not finish in " + COMMAND_TIMEOUT);
        }
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
      } finally {
        Files.deleteIfExists(out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionFailedError("interrupted: kubectl " + String.join(" ", args));
    }
  }

  /**
   * Waits until {@code condition} holds, checking every half second, for at most {@code bound};
   * fails with {@code what} and the last {@code state}. The bound only keeps a broken cluster
   * from hanging the suite: no test asserts how long anything takes.
   */
  static void await(String what, Duration bound, Supplier<Boolean> condition,
      Supplier<String> state) {
    long end = System.nanoTime() + bound.toNanos();
    while (!condition.get()) {
      if (System.nanoTime() > end) {
        throw new AssertionFailedError("not within " + bound + ": " + what + "; last seen: "
            + state.get());
      }
      try {
        Thread.sleep(500);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionFailedError("interrupted while waiting: " + what);
      }
    }
  }
}
