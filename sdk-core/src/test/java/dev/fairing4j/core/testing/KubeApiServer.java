package dev.fairing4j.core.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.credentials.AccessTokenAuthentication;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.opentest4j.AssertionFailedError;

/**
 * A real Kubernetes API server for tests: Debian's etcd and kube-apiserver v1.32 on loopback
 * with free ports, TLS from a throw-away CA, token users ({@link User}), RBAC, an audit log of
 * the requests the code under test makes, and the real kubeflow.org/v1 CRDs; optionally
 * kube-controller-manager (Job pods, garbage collection, namespace deletion, claim binding).
 * The binaries come from {@link KubeBinaries}.
 *
 * <pre>{@code
 * KubeApiServer k8s = KubeApiServer.shared();          // one per JVM, stopped at exit
 * String ns = k8s.createNamespace("submit");
 * Path kubeconfig = k8s.kubeconfig(User.SDK, ns);       // hand this to Clusters.kubernetes()
 * AuditLog.Mark mark = k8s.audit().mark();
 * ...
 * assertThat(k8s.audit().since(mark, User.SDK)).isEmpty();   // "no request reached the server"
 * }</pre>
 *
 * <p>There is no kubelet and no scheduler: pods stay Pending unless a test plays the node (sets
 * their status). {@link #stopApiServer()} and {@link #startApiServer()} restart the API server on
 * the same port while etcd keeps the data, which is how the 429 and 503 answers of a restarting
 * server are met. Every process is started with a parent-death signal, so a killed test JVM
 * leaves none behind.
 */
public final class KubeApiServer implements AutoCloseable {
  /** The token users of the server. */
  public enum User {
    /** What tests hand to the code under test: a cluster admin whose requests are audited. */
    SDK("fairing4j-sdk", "system:masters"),
    /** The fixture's and tests' own setup calls: a cluster admin, not audited. */
    FIXTURE("fairing4j-fixture", "system:masters"),
    /** Authenticated, granted nothing by RBAC: its requests are denied (403) unless bound. */
    UNPRIVILEGED("fairing4j-nobody", "");

    private final String username;
    private final String group;

    User(String username, String group) {
      this.username = username;
      this.group = group;
    }

    /** The user name the server knows, as RBAC subjects and audit events name it. */
    public String username() {
      return username;
    }
  }

  /** The kubeflow.org/v1 CRDs in this test-jar, byte-for-byte from kubeflow/trainer v1.9.4. */
  public static final List<String> KUBEFLOW_V1_CRDS = Stream.of("pytorchjobs", "tfjobs", "mpijobs",
      "xgboostjobs", "jaxjobs", "paddlejobs")
      .map(plural -> "kubeflow/crds/kubeflow.org_" + plural + ".yaml").toList();

  /**
   * The Kubeflow Trainer v2 CRDs (TrainJob, TrainingRuntime, ClusterTrainingRuntime;
   * {@code trainer.kubeflow.org/v1alpha1}) of kubeflow/trainer v2.3.0 and the JobSet CRD of the
   * JobSet release it installs (v0.12.0), byte-for-byte: for {@code RealKubernetes.withCrds(..)}.
   * The JobSet CRD is applied first, as an install does.
   */
  public static final List<String> TRAINER_V2_CRDS = List.of(
      "kubeflow/trainer/crds/jobset.x-k8s.io_jobsets.yaml",
      "kubeflow/trainer/crds/trainer.kubeflow.org_trainjobs.yaml",
      "kubeflow/trainer/crds/trainer.kubeflow.org_trainingruntimes.yaml",
      "kubeflow/trainer/crds/trainer.kubeflow.org_clustertrainingruntimes.yaml");

  /**
   * Katib v0.19.0's Experiment, Suggestion and Trial CRDs (as
   * {@code ../shared/kubeflow/katib/crds} has them; their schemas preserve unknown fields: Katib
   * validates in its webhook).
   */
  public static final List<String> KATIB_CRDS = List.of("katib/crds/experiment.yaml",
      "katib/crds/suggestion.yaml", "katib/crds/trial.yaml");

  /**
   * Kubeflow Trainer's OptimizationJob CRD (main after v2.3, as
   * {@code ../shared/kubeflow/trainer/next} has it), with its CEL rules.
   */
  public static final List<String> OPTIMIZATION_JOB_CRDS = List.of(
      "kubeflow/trainer-next/crds/trainer.kubeflow.org_optimizationjobs.yaml");

  /** KServe v0.19.0's InferenceService CRD (as {@code ../shared/kserve/crds} has it). */
  public static final List<String> KSERVE_CRDS =
      List.of("kserve/crds/serving.kserve.io_inferenceservices.yaml");

  /**
   * The TrainJob and ClusterTrainingRuntime CRDs of Trainer v2.0.1 (the version the cluster kit
   * runs: {@code podSpecOverrides}, {@code spec.labels}, int-or-string {@code numProcPerNode}).
   * Their names are those of {@link #TRAINER_V2_CRDS}, so apply them only to a server of the
   * test's own ({@link #start()}); {@link #applyCrds} refuses to mix the two on one server.
   */
  public static final List<String> TRAINER_V2_0_CRDS = List.of(
      "kubeflow/trainer-v2.0.1/crds/trainer.kubeflow.org_trainjobs.yaml",
      "kubeflow/trainer-v2.0.1/crds/trainer.kubeflow.org_clustertrainingruntimes.yaml");

  private static final String CONTROLLERS_USER = "fairing4j-controllers";
  private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
  private static final int PORT_ATTEMPTS = 3;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final AtomicInteger NAMESPACES = new AtomicInteger();
  private static KubeApiServer shared;
  private static AssertionFailedError sharedFailure;

  private final Path dir;
  private final Map<User, String> tokens;
  private final String caPem;
  private final int etcdPort;
  private final int apiPort;
  private final HttpClient http;
  private final AuditLog audit;
  private final Set<String> appliedCrds = new LinkedHashSet<>();
  // CRD name to the resource it came from: two versions of one CRD must not meet on a server.
  private final Map<String, String> crdSources = new java.util.HashMap<>();
  private Path apiServerBinary;
  private List<String> extraApiServerFlags = List.of();
  private Process etcd;
  private Process apiServer;
  private Process controllerManager;
  private int apiServerStarts;

  private KubeApiServer(Path dir) throws IOException {
    this.dir = dir;
    SecureRandom random = new SecureRandom();
    this.tokens = new java.util.EnumMap<>(User.class);
    StringBuilder csv = new StringBuilder();
    int uid = 1;
    for (User user : User.values()) {
      String token = newToken(random);
      tokens.put(user, token);
      csv.append(token).append(',').append(user.username).append(',').append(uid++);
      csv.append(user.group.isEmpty() ? "" : ",\"" + user.group + "\"").append('\n');
    }
    String controllersToken = newToken(random);
    csv.append(controllersToken).append(',').append(CONTROLLERS_USER).append(',').append(uid)
        .append(",\"system:masters\"\n");
    Files.writeString(dir.resolve("tokens.csv"), csv);
    TestPki pki = TestPki.create();
    pki.writeServerCertificatePem(dir.resolve("serving.crt"));
    pki.writeServerKeyPem(dir.resolve("serving.key"));
    this.caPem = pki.caPem();
    Files.writeString(dir.resolve("ca.crt"), caPem);
    TestPki.writeKeyPair(dir.resolve("sa.key"), dir.resolve("sa.pub"));
    // The fixture's and the controllers' requests would drown what the test asks about.
    Files.writeString(dir.resolve("audit-policy.yaml"), """
        apiVersion: audit.k8s.io/v1
        kind: Policy
        omitStages: ["RequestReceived"]
        rules:
          - level: None
            users: ["system:apiserver", "%s", "%s"]
          - level: None
            userGroups: ["system:nodes", "system:serviceaccounts:kube-system"]
          - level: Metadata
        """.formatted(User.FIXTURE.username, CONTROLLERS_USER));
    this.etcdPort = freePort();
    this.apiPort = freePort();
    this.http = HttpClient.newBuilder().sslContext(trusting(pki))
        .connectTimeout(Duration.ofSeconds(5)).build();
    this.audit = new AuditLog(dir.resolve("audit.log"));
    writeKubeconfig(dir.resolve("controllers.kubeconfig"), controllersToken, "default");
  }

  // ---- starting and stopping ----------------------------------------------------------------

  /**
   * The server this JVM's tests share, started on first use with the kubeflow.org/v1 CRDs and
   * stopped when the JVM exits. Tests keep apart by namespace ({@link #createNamespace}).
   */
  public static synchronized KubeApiServer shared() {
    if (shared != null) {
      return shared;
    }
    // One failed start fails every test that needs the server at once, not after its timeout.
    if (sharedFailure != null) {
      throw new AssertionFailedError("the shared API server did not start: "
          + sharedFailure.getMessage(), sharedFailure);
    }
    try {
      shared = start();
    } catch (AssertionFailedError e) {
      sharedFailure = e;
      throw e;
    }
    KubeApiServer server = shared;
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "kube-api-server-stop"));
    return shared;
  }

  /**
   * A server of the calling test's own, with the kubeflow.org/v1 CRDs; {@link #close()} stops
   * it. For tests that stop or restart the API server and must not disturb others.
   */
  public static KubeApiServer start() {
    return start(List.of());
  }

  /**
   * As {@link #start()}, with {@code apiServerFlags} added to every kube-apiserver start, e.g.
   * {@code --watch-cache=false} so that watches read etcd directly and a watch from a compacted
   * resourceVersion gets 410 Gone (see {@link #compactEtcd()}).
   */
  public static KubeApiServer start(List<String> apiServerFlags) {
    // Ports are picked free, then bound by etcd and kube-apiserver a moment later: a connection
    // may take one as its source port in between. Fresh ports, a few times.
    for (int attempt = 1; ; attempt++) {
      try {
        return startOnce(apiServerFlags);
      } catch (AssertionFailedError e) {
        if (attempt == PORT_ATTEMPTS || !String.valueOf(e.getMessage())
            .contains("address already in use")) {
          throw e;
        }
        System.err.println("KubeApiServer: a port was taken before it was bound, starting"
            + " again on fresh ports: " + e.getMessage().lines().reduce((a, b) -> b).orElse(""));
      }
    }
  }

  private static KubeApiServer startOnce(List<String> apiServerFlags) {
    Path apiServerBinary = KubeBinaries.require("kube-apiserver");
    Path etcdBinary = KubeBinaries.etcd();
    KubeApiServer server;
    try {
      server = new KubeApiServer(Files.createTempDirectory("fairing4j-kube-api-"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare the API server's files", e);
    }
    try {
      server.startEtcd(etcdBinary);
      server.apiServerBinary = apiServerBinary;
      server.extraApiServerFlags = List.copyOf(apiServerFlags);
      server.startApiServer();
      server.awaitReady(START_TIMEOUT);
      server.applyCrds(KUBEFLOW_V1_CRDS);
      return server;
    } catch (RuntimeException | Error e) {
      server.close();
      throw e;
    }
  }

  private void startEtcd(Path binary) {
    int peerPort = freePort();
    String client = "http://127.0.0.1:" + etcdPort;
    String peer = "http://127.0.0.1:" + peerPort;
    etcd = launch("etcd", List.of(binary.toString(), "--name", "default",
        "--data-dir", dir.resolve("etcd").toString(),
        "--listen-client-urls", client, "--advertise-client-urls", client,
        "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
        "--initial-cluster", "default=" + peer, "--unsafe-no-fsync"));
    awaitHttp("etcd", URI.create(client + "/health"), null, etcd, START_TIMEOUT);
  }

  /**
   * Starts kube-apiserver (again) on its port, without waiting until it is ready: right after a
   * start it answers 429 and 503 for a few seconds, as a restarted production server does.
   * {@link #awaitReady(Duration)} waits.
   */
  public synchronized void startApiServer() {
    if (isApiServerRunning()) {
      return;
    }
    apiServerStarts++;
    List<String> command = new ArrayList<>(List.of(apiServerBinary.toString(),
        "--etcd-servers", "http://127.0.0.1:" + etcdPort,
        "--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
        "--secure-port", String.valueOf(apiPort),
        "--tls-cert-file", dir.resolve("serving.crt").toString(),
        "--tls-private-key-file", dir.resolve("serving.key").toString(),
        "--token-auth-file", dir.resolve("tokens.csv").toString(),
        "--authorization-mode", "RBAC",
        "--service-cluster-ip-range", "10.96.0.0/16",
        "--service-account-issuer", "https://kubernetes.default.svc",
        "--service-account-key-file", dir.resolve("sa.pub").toString(),
        "--service-account-signing-key-file", dir.resolve("sa.key").toString(),
        "--audit-policy-file", dir.resolve("audit-policy.yaml").toString(),
        "--audit-log-path", audit.file().toString(), "--audit-log-format", "json",
        "--audit-log-mode", "blocking",
        "--endpoint-reconciler-type", "none",
        // a stop with a watch open waited the whole default grace (20 s here) for the watch
        "--shutdown-watch-termination-grace-period", "1s",
        "--cert-dir", dir.resolve("certs").toString()));
    command.addAll(extraApiServerFlags);
    apiServer = launch("kube-apiserver-" + apiServerStarts, command);
  }

  /** Stops kube-apiserver (SIGTERM); etcd, and so every object, stays. */
  public synchronized void stopApiServer() {
    if (apiServer != null) {
      ChildProcesses.stop(apiServer, Duration.ofSeconds(20));
      apiServer = null;
    }
  }

  /** Stops and starts kube-apiserver and waits until it is ready again. */
  public void restartApiServer() {
    stopApiServer();
    startApiServer();
    awaitReady(START_TIMEOUT);
  }

  /** Whether the kube-apiserver process is alive (it may not be ready yet). */
  public synchronized boolean isApiServerRunning() {
    return apiServer != null && apiServer.isAlive();
  }

  /** Waits until {@code /readyz} answers 200. */
  public void awaitReady(Duration timeout) {
    Process process;
    synchronized (this) {
      process = apiServer;
    }
    awaitHttp("kube-apiserver", URI.create(url() + "/readyz"), tokens.get(User.FIXTURE), process,
        timeout);
  }

  /**
   * Compacts etcd's history up to its current revision (what the API server's own compaction
   * does every five minutes) and returns that revision: a watch asked to start from an older
   * resourceVersion is then answered 410 Gone, once it reads etcd rather than the watch cache
   * ({@code --watch-cache=false}, {@link #start(List)}). Works while kube-apiserver is stopped.
   */
  public long compactEtcd() {
    String etcdUrl = "http://127.0.0.1:" + etcdPort + "/v3/kv/";
    // Any range answers with the store's current revision in its header.
    Map<String, Object> range = etcdCall(etcdUrl + "range",
        Map.of("key", Base64.getEncoder().encodeToString(new byte[] {0})));
    long revision = Long.parseLong(String.valueOf(
        ((Map<?, ?>) range.get("header")).get("revision")));
    etcdCall(etcdUrl + "compaction", Map.of("revision", revision, "physical", true));
    return revision;
  }

  private Map<String, Object> etcdCall(String url, Map<String, Object> body) {
    try {
      HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
          URI.create(url)).timeout(Duration.ofSeconds(30))
          .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body))).build(),
          HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new AssertionFailedError("etcd " + url + " answered " + response.statusCode()
            + " " + response.body());
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> json = JSON.readValue(response.body(), Map.class);
      return json;
    } catch (IOException e) {
      throw new UncheckedIOException("etcd did not answer at " + url, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionFailedError("interrupted: " + url);
    }
  }

  /**
   * Starts kube-controller-manager unless it runs: the Job controller (Indexed Job pods), the
   * garbage collector (cascading and foreground deletion), namespace deletion, service accounts
   * and PersistentVolume binding. Idempotent.
   */
  public synchronized KubeApiServer withControllers() {
    if (controllerManager != null && controllerManager.isAlive()) {
      return this;
    }
    Path binary = KubeBinaries.require("kube-controller-manager");
    controllerManager = launch("kube-controller-manager", List.of(binary.toString(),
        "--kubeconfig", dir.resolve("controllers.kubeconfig").toString(),
        "--controllers", "job,garbagecollector,namespace,serviceaccount,serviceaccount-token,"
            + "persistentvolume-binder",
        "--service-account-private-key-file", dir.resolve("sa.key").toString(),
        "--root-ca-file", dir.resolve("ca.crt").toString(),
        "--use-service-account-credentials=false", "--leader-elect=false",
        "--secure-port", "0", "--bind-address", "127.0.0.1"));
    return this;
  }

  /** Stops every process and deletes the server's files. */
  @Override
  public synchronized void close() {
    for (Process process : new Process[] {controllerManager, apiServer, etcd}) {
      if (process != null) {
        ChildProcesses.stop(process, Duration.ofSeconds(10));
      }
    }
    controllerManager = null;
    apiServer = null;
    etcd = null;
    deleteTree(dir);
  }

  // ---- what tests use ------------------------------------------------------------------------

  /** The API server's URL, {@code https://127.0.0.1:PORT}. */
  public String url() {
    return "https://127.0.0.1:" + apiPort;
  }

  /** The CA certificate (PEM) the server's TLS certificate is signed by. */
  public String caPem() {
    return caPem;
  }

  /**
   * The server's TLS certificate and key as PEM: a certificate and key any client accepts, for
   * kubeconfigs that need one (the server does not check client certificates).
   */
  public List<String> servingCertificateAndKeyPem() {
    try {
      return List.of(Files.readString(dir.resolve("serving.crt")),
          Files.readString(dir.resolve("serving.key")));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The bearer token of {@code user}; for tests that build their own requests. */
  public String token(User user) {
    return tokens.get(user);
  }

  /** The audit log: the requests of every user but the fixture's and the controllers'. */
  public AuditLog audit() {
    return audit;
  }

  /**
   * A new kubeconfig file for {@code user} whose context's namespace is {@code namespace}, with
   * the CA and the token inline, as {@code Clusters.kubernetes().kubeconfig(..)} reads it.
   */
  public Path kubeconfig(User user, String namespace) {
    try {
      Path file = Files.createTempFile(dir, "kubeconfig-" + user.username + "-", ".yaml");
      return writeKubeconfig(file, tokens.get(user), namespace);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write a kubeconfig", e);
    }
  }

  /** Writes a kubeconfig for {@code token} to {@code file}; the file. */
  public Path writeKubeconfig(Path file, String token, String namespace) {
    String ca = Base64.getEncoder().encodeToString(caPem.getBytes(StandardCharsets.US_ASCII));
    try {
      Files.writeString(file, """
          apiVersion: v1
          kind: Config
          clusters:
            - name: fairing4j-test
              cluster:
                server: %s
                certificate-authority-data: %s
          users:
            - name: fairing4j-test
              user:
                token: %s
          contexts:
            - name: fairing4j-test
              context:
                cluster: fairing4j-test
                user: fairing4j-test
                namespace: %s
          current-context: fairing4j-test
          preferences: {}
          """.formatted(url(), ca, token, namespace));
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  /**
   * A client-java client as {@code user}, trusting the server's CA; reads time out after 30 s
   * (a watch sets its own).
   */
  public ApiClient apiClient(User user) {
    try {
      return new ClientBuilder().setBasePath(url())
          .setCertificateAuthority(caPem.getBytes(StandardCharsets.US_ASCII))
          .setAuthentication(new AccessTokenAuthentication(tokens.get(user)))
          .setReadTimeout(Duration.ofSeconds(30))
          .build();
    } catch (RuntimeException e) {
      throw new IllegalStateException("cannot build a client for " + url(), e);
    }
  }

  /** A client-java client as {@link User#FIXTURE}, for a test's own setup and checks. */
  public ApiClient apiClient() {
    return apiClient(User.FIXTURE);
  }

  /**
   * Creates a namespace named {@code prefix-N-xxxx} (unique in this JVM and across runs) and
   * waits until its {@code default} service account exists when controllers run; its name.
   */
  public String createNamespace(String prefix) {
    String base = prefix.toLowerCase().replaceAll("[^a-z0-9-]", "-").replaceAll("^-+|-+$", "");
    if (base.isEmpty() || !Character.isLetter(base.charAt(0))) {
      base = "t" + base;
    }
    String suffix = "-" + NAMESPACES.incrementAndGet() + "-"
        + HexFormat.of().formatHex(new SecureRandom().generateSeed(2));
    String name = base.substring(0, Math.min(base.length(), 63 - suffix.length())) + suffix;
    name = name.replace("--", "-");
    request("POST", "/api/v1/namespaces", Map.of("apiVersion", "v1", "kind", "Namespace",
        "metadata", Map.of("name", name)));
    return name;
  }

  /**
   * Creates the CRDs of the test-jar resources {@code resources} (YAML, one CRD each) unless
   * this server has them, and waits until each is Established.
   */
  public synchronized void applyCrds(List<String> resources) {
    List<String> names = new ArrayList<>();
    for (String resource : resources) {
      if (appliedCrds.contains(resource)) {
        continue;
      }
      Map<String, Object> crd = readYamlResource(resource);
      @SuppressWarnings("unchecked")
      String name = (String) ((Map<String, Object>) crd.get("metadata")).get("name");
      String earlier = crdSources.putIfAbsent(name, resource);
      if (earlier != null) {
        throw new AssertionFailedError("CRD " + name + " was applied from " + earlier
            + "; " + resource + " is another version of it: use a server of the test's own"
            + " (KubeApiServer.start()) for it");
      }
      Response response = send("POST",
          "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd);
      if (response.status() != 201 && response.status() != 409) {
        throw new AssertionFailedError("creating CRD " + name + " failed: " + response);
      }
      names.add(name);
      appliedCrds.add(resource);
    }
    Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
    for (String name : names) {
      while (!established(name)) {
        if (Instant.now().isAfter(deadline)) {
          throw new AssertionFailedError("CRD " + name + " is not Established after 60 s");
        }
        sleep(100);
      }
    }
  }

  /**
   * Sends a request as {@link User#FIXTURE}; {@code body} (a Map or a JSON string) as JSON.
   *
   * @throws AssertionFailedError unless the answer is 2xx
   */
  public Map<String, Object> request(String method, String path, Object body) {
    Response response = send(method, path, body);
    if (response.status() / 100 != 2) {
      throw new AssertionFailedError(method + " " + path + " failed: " + response);
    }
    return response.json();
  }

  /** Sends a request as {@link User#FIXTURE} and returns the answer whatever its status. */
  public Response send(String method, String path, Object body) {
    return send(User.FIXTURE, method, path, body, "application/json");
  }

  /** Sends a request as {@code user} with {@code contentType}; the answer whatever its status. */
  public Response send(User user, String method, String path, Object body, String contentType) {
    try {
      HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url() + path))
          .timeout(Duration.ofSeconds(30))
          .header("Authorization", "Bearer " + tokens.get(user))
          .header("Accept", "application/json");
      if (body == null) {
        request.method(method, HttpRequest.BodyPublishers.noBody());
      } else {
        String text = body instanceof String s ? s : JSON.writeValueAsString(body);
        request.header("Content-Type", contentType)
            .method(method, HttpRequest.BodyPublishers.ofString(text));
      }
      HttpResponse<String> response = http.send(request.build(),
          HttpResponse.BodyHandlers.ofString());
      return new Response(response.statusCode(), response.body(), response.headers().map());
    } catch (IOException e) {
      throw new UncheckedIOException(method + " " + path + " did not reach " + url(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionFailedError("interrupted: " + method + " " + path);
    }
  }

  /** A status code, body and headers (names in lower case). */
  public record Response(int status, String body, Map<String, List<String>> headers) {
    /** An answer without headers. */
    public Response(int status, String body) {
      this(status, body, Map.of());
    }

    /** The first value of header {@code name}, if present. */
    public java.util.Optional<String> header(String name) {
      return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
          .flatMap(e -> e.getValue().stream()).findFirst();
    }

    /** The body as a JSON object (empty for an empty body). */
    @SuppressWarnings("unchecked")
    public Map<String, Object> json() {
      if (body == null || body.isBlank()) {
        return Map.of();
      }
      try {
        return JSON.readValue(body, Map.class);
      } catch (IOException e) {
        throw new UncheckedIOException("not JSON: " + body, e);
      }
    }

    @Override
    public String toString() {
      return status + " " + (body.length() > 600 ? body.substring(0, 600) + "..." : body);
    }
  }

  /** The last {@code lines} lines of a process's log ({@code kube-apiserver-1}, {@code etcd}). */
  public String logTail(String process, int lines) {
    Path log = dir.resolve("logs").resolve(process + ".log");
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log at " + log + ")";
    }
  }

  @Override
  public String toString() {
    return "KubeApiServer[" + url() + (isApiServerRunning() ? "" : ", stopped") + "]";
  }

  // ---- internals -----------------------------------------------------------------------------

  private boolean established(String crd) {
    Response response = send("GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"
        + crd, null);
    if (response.status() != 200) {
      return false;
    }
    Object conditions = ((Map<?, ?>) response.json().getOrDefault("status", Map.of()))
        .get("conditions");
    if (!(conditions instanceof List<?> list)) {
      return false;
    }
    return list.stream().map(Map.class::cast).anyMatch(c -> "Established".equals(c.get("type"))
        && "True".equals(c.get("status")));
  }

  private Process launch(String name, List<String> command) {
    try {
      Path logs = Files.createDirectories(dir.resolve("logs"));
      ProcessBuilder builder = new ProcessBuilder(command)
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(logs.resolve(name + ".log").toFile()));
      return ChildProcesses.start(builder);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + command.get(0), e);
    }
  }

  private void awaitHttp(String what, URI uri, String token, Process process, Duration timeout) {
    Instant deadline = Instant.now().plus(timeout);
    String last = "no answer";
    while (Instant.now().isBefore(deadline)) {
      if (process == null || !process.isAlive()) {
        throw new AssertionFailedError(what + " exited before it was ready; its log ends:\n"
            + logTail(what.equals("kube-apiserver") ? "kube-apiserver-" + apiServerStarts : what,
                30));
      }
      try {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5));
        if (token != null) {
          request.header("Authorization", "Bearer " + token);
        }
        HttpResponse<String> response = http.send(request.build(),
            HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 200) {
          return;
        }
        last = response.statusCode() + " " + response.body();
      } catch (IOException e) {
        last = e.toString();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionFailedError("interrupted while waiting for " + what);
      }
      sleep(100);
    }
    throw new AssertionFailedError(what + " not ready after " + timeout.toSeconds() + " s ("
        + uri + ": " + last + ")");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> readYamlResource(String resource) {
    ClassLoader loader = KubeApiServer.class.getClassLoader();
    try (InputStream in = loader.getResourceAsStream(resource)) {
      if (in == null) {
        throw new AssertionFailedError("test resource " + resource + " is missing");
      }
      return YAML.readValue(in, Map.class);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + resource, e);
    }
  }

  private static SSLContext trusting(TestPki pki) {
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setCertificateEntry("ca", pki.caCertificate);
      TrustManagerFactory factory =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(store);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, factory.getTrustManagers(), null);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot trust the test CA", e);
    }
  }

  private static String newToken(SecureRandom random) {
    byte[] bytes = new byte[16];
    random.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1,
        java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port", e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionFailedError("interrupted");
    }
  }

  private static void deleteTree(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException ignored) {
      // a temp directory left behind must not fail a test
    }
  }
}
