package dev.fairing4j.core.testing;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArraySet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.opentest4j.AssertionFailedError;

/**
 * A real container registry (the CNCF Distribution registry, Debian package
 * {@code docker-registry}) on a free loopback port, for tests that push and pull images.
 *
 * <pre>{@code
 * @RegisterExtension static final RegistryExtension REGISTRY = RegistryExtension.plain();
 * // or RegistryExtension.tlsWithAuth("alice", "s3cret"): TLS with a throw-away CA + htpasswd
 * ... Builders.jib(base).pushTo(REGISTRY.hostPort() + "/team/app") ...
 * assertThat(REGISTRY.requests()).filteredOn(RegistryRequest::isBlobUpload).hasSize(4);
 * }</pre>
 *
 * <p>Registered on a static field it runs once per test class; on an instance field, once per
 * test. {@link #start()} and {@link #stop()} drive it by hand. The process is started with a
 * parent-death signal so it cannot outlive a killed test JVM, and is stopped by PID.
 *
 * <p>{@link #requests()} reads the registry's own access log, so it sees every request, including
 * those answered 401 or 404, exactly as the server saw them.
 */
public final class RegistryExtension implements BeforeAllCallback, AfterAllCallback,
    BeforeEachCallback, AfterEachCallback, ParameterResolver, AutoCloseable {

  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration STOP_GRACE = Duration.ofSeconds(5);
  private static final Duration LOG_CATCH_UP = Duration.ofSeconds(10);
  private static final int START_ATTEMPTS = 5;
  /** gorilla's combined log format: {@code host - user [time] "METHOD URI PROTO" status size ...}. */
  private static final Pattern ACCESS_LOG =
      Pattern.compile("^\\S+ \\S+ \\S+ \\[[^\\]]*] \"(\\S+) (\\S+) [^\"]*\" (\\d{3}) ");
  private static final String SYNC_PATH = "/fairing4j-log-sync/";
  private static final Set<RegistryExtension> RUNNING = new CopyOnWriteArraySet<>();

  private final String user;
  private final String password;
  private final char[] trustStorePassword;
  private final AtomicLong syncCounter = new AtomicLong();
  private final Object logLock = new Object();

  // one run's state, replaced by each start()
  private Process process;
  private Path workDir;
  private Path storageDir;
  private int port;
  private Path caPem;
  private Path trustStore;
  private SSLContext sslContext;
  private HttpClient httpClient;
  private List<Thread> readers = List.of();
  private Thread shutdownHook;
  private boolean startedForOneTest;
  private boolean startedForClass;
  // guarded by logLock
  private final List<RegistryRequest> requests = new ArrayList<>();
  private final List<String> output = new ArrayList<>();
  private final Set<String> syncsSeen = new HashSet<>();
  private int mark;

  private RegistryExtension(String user, String password) {
    this.user = user;
    this.password = password;
    this.trustStorePassword = user == null ? new char[0] : randomToken().toCharArray();
  }

  /** A plain-HTTP registry on {@code 127.0.0.1} without authentication. */
  public static RegistryExtension plain() {
    return new RegistryExtension(null, null);
  }

  /**
   * A registry serving HTTPS with a certificate for {@code 127.0.0.1} and {@code localhost}, signed
   * by a CA generated for this registry, and requiring HTTP basic auth with these credentials.
   */
  public static RegistryExtension tlsWithAuth(String user, String password) {
    if (user == null || user.isEmpty() || user.contains(":") || password == null
        || password.isEmpty()) {
      throw new IllegalArgumentException("user (without ':') and password must be non-empty");
    }
    return new RegistryExtension(user, password);
  }

  // ---- lifecycle ---------------------------------------------------------------------------

  @Override
  public void beforeAll(ExtensionContext context) {
    start();
    startedForClass = true;
  }

  @Override
  public void afterAll(ExtensionContext context) {
    startedForClass = false;
    stop();
  }

  /** Starts a registry per test when registered on an instance field (JUnit skips beforeAll). */
  @Override
  public void beforeEach(ExtensionContext context) {
    if (startedForClass && !isRunning()) {
      // restarting would silently move the registry to another port mid-class
      throw new AssertionFailedError("the registry started for this class has died; its output:\n"
          + log());
    }
    if (!isRunning()) {
      start();
      startedForOneTest = true;
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    if (startedForOneTest) {
      startedForOneTest = false;
      stop();
    }
  }

  /**
   * Starts the registry and returns once it answers HTTP requests. Fails with an
   * {@code apt-get install docker-registry} hint when the registry is not installed.
   */
  public synchronized void start() {
    if (isRunning()) {
      return;
    }
    Path binary = Tools.require("docker-registry", "docker-registry");
    String lastOutput = "";
    for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      try {
        if (startOnce(binary)) {
          RUNNING.add(this);
          return;
        }
      } catch (IOException e) {
        stop();
        throw new UncheckedIOException("cannot start the registry", e);
      } catch (RuntimeException | Error e) {
        stop();
        throw e;
      }
      lastOutput = log();
      stop();
      // the port was free when picked but not reserved: another process may have taken it
      // before the registry bound it, so only that failure is worth another try
      if (!lastOutput.contains("address already in use")) {
        break;
      }
    }
    throw new AssertionFailedError("the registry did not start; its output:\n" + lastOutput);
  }

  /**
   * Stops the registry by PID (SIGTERM, then SIGKILL after 5 s), waits until it is gone, and
   * deletes its configuration, certificates and storage. Does nothing when not running.
   */
  public synchronized void stop() {
    RUNNING.remove(this);
    if (process != null) {
      ChildProcesses.stop(process, STOP_GRACE);
      joinReaders();
      if (shutdownHook != null) {
        try {
          Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyShuttingDown) {
          // the hook is running or about to; nothing to undo
        }
        shutdownHook = null;
      }
    }
    process = null;
    httpClient = null;
    sslContext = null;
    caPem = null;
    trustStore = null;
    if (workDir != null) {
      deleteRecursively(workDir);
      workDir = null;
    }
  }

  /** Same as {@link #stop()}, for try-with-resources. */
  @Override
  public void close() {
    stop();
  }

  /** Whether the registry process is alive. */
  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  // ---- accessors ---------------------------------------------------------------------------

  /** {@code 127.0.0.1:PORT}, the registry part of an image reference. */
  public String hostPort() {
    return "127.0.0.1:" + runningPort();
  }

  /** {@code http://127.0.0.1:PORT} or {@code https://127.0.0.1:PORT}. */
  public String url() {
    return (isTls() ? "https://" : "http://") + hostPort();
  }

  /** The registry process's PID (the one {@link #stop()} kills). */
  public synchronized long pid() {
    requireStarted();
    return process.pid();
  }

  /** Where the registry stores blobs and manifests (deleted by {@link #stop()}). */
  public synchronized Path storageDir() {
    requireStarted();
    return storageDir;
  }

  /** The CA certificate (PEM) a client must trust; empty for a plain registry. */
  public synchronized Optional<Path> caCertificatePem() {
    return Optional.ofNullable(caPem);
  }

  /** A PKCS12 trust store holding the CA; empty for a plain registry. */
  public synchronized Optional<Path> trustStore() {
    return Optional.ofNullable(trustStore);
  }

  /** The password of {@link #trustStore()} (a copy; empty for a plain registry). */
  public char[] trustStorePassword() {
    return trustStorePassword.clone();
  }

  /** An SSLContext that trusts the registry's CA; empty for a plain registry. */
  public synchronized Optional<SSLContext> sslContext() {
    return Optional.ofNullable(sslContext);
  }

  /** The user the registry accepts; empty for a plain registry. */
  public Optional<String> username() {
    return Optional.ofNullable(user);
  }

  /** The password the registry accepts; empty for a plain registry. */
  public Optional<String> password() {
    return Optional.ofNullable(password);
  }

  /**
   * A fresh HTTP/1.1 client that trusts this registry's CA (if any) and sends no credentials, for
   * talking to the registry API directly.
   */
  public HttpClient newHttpClient() {
    HttpClient.Builder builder = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5));
    sslContext().ifPresent(builder::sslContext);
    return builder.build();
  }

  /**
   * Every request the registry answered since it started or since the last
   * {@link #clearRequests()}, in the order it logged them. Waits until the access log has caught
   * up with everything the registry answered before this call.
   */
  public List<RegistryRequest> requests() {
    catchUpWithLog();
    synchronized (logLock) {
      return List.copyOf(requests.subList(mark, requests.size()));
    }
  }

  /** Makes later {@link #requests()} calls return only requests answered after this call. */
  public void clearRequests() {
    catchUpWithLog();
    synchronized (logLock) {
      mark = requests.size();
    }
  }

  /** The registry's whole output (access log and JSON application log), for failure messages. */
  public String log() {
    synchronized (logLock) {
      return String.join("\n", output);
    }
  }

  /**
   * {@code skopeo inspect --tls-verify=false docker://imageRef}, with {@code --creds} added when
   * {@code imageRef} names a running {@code tlsWithAuth} fixture registry. Static so that it also
   * works on references built from {@link #hostPort()} alone.
   */
  public static JsonNode skopeoInspect(String imageRef) {
    Optional<RegistryExtension> owner = ownerOf(imageRef);
    if (owner.isPresent() && owner.get().user != null) {
      return Skopeo.inspect(imageRef, owner.get().user, owner.get().password);
    }
    return Skopeo.inspect(imageRef);
  }

  /** Like {@link #skopeoInspect(String)} with {@code --raw}: the manifest as served. */
  public static JsonNode skopeoInspectRaw(String imageRef) {
    Optional<RegistryExtension> owner = ownerOf(imageRef);
    if (owner.isPresent() && owner.get().user != null) {
      return Skopeo.inspectRaw(imageRef, owner.get().user, owner.get().password);
    }
    return Skopeo.inspectRaw(imageRef);
  }

  @Override
  public String toString() {
    return "RegistryExtension[" + (isTls() ? "tls+auth" : "plain")
        + (isRunning() ? " " + url() : " stopped") + "]";
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == RegistryExtension.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return this;
  }

  // ---- internals ---------------------------------------------------------------------------

  private boolean isTls() {
    return user != null;
  }

  private synchronized int runningPort() {
    requireStarted();
    return port;
  }

  private void requireStarted() {
    if (process == null) {
      throw new IllegalStateException("the registry is not started: register the extension with "
          + "@RegisterExtension or call start()");
    }
  }

  private static Optional<RegistryExtension> ownerOf(String imageRef) {
    String ref = imageRef.startsWith("docker://") ? imageRef.substring(9) : imageRef;
    for (RegistryExtension registry : RUNNING) {
      try {
        if (ref.startsWith(registry.hostPort() + "/")) {
          return Optional.of(registry);
        }
      } catch (IllegalStateException stoppedMeanwhile) {
        // not a candidate any more
      }
    }
    return Optional.empty();
  }

  private void writeTlsAndAuthFiles() throws IOException {
    TestPki pki = TestPki.create();
    caPem = workDir.resolve("ca.pem");
    pki.writeCaPem(caPem);
    pki.writeServerCertificatePem(workDir.resolve("server.pem"));
    pki.writeServerKeyPem(workDir.resolve("server-key.pem"));
    trustStore = workDir.resolve("truststore.p12");
    pki.writeTrustStore(trustStore, trustStorePassword);
    // cost 4 is bcrypt's minimum: the registry checks the hash on every request
    Files.writeString(workDir.resolve("htpasswd"), user + ":" + Bcrypt.hash(password, 4) + "\n");
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(trustStore)) {
        store.load(in, trustStorePassword);
      }
      TrustManagerFactory trust =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      trust.init(store);
      sslContext = SSLContext.getInstance("TLS");
      sslContext.init(null, trust.getTrustManagers(), null);
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot load the generated trust store", e);
    }
  }

  private boolean startOnce(Path binary) throws IOException {
    synchronized (logLock) {
      requests.clear();
      output.clear();
      syncsSeen.clear();
      mark = 0;
    }
    workDir = Files.createTempDirectory("fairing4j-registry-");
    storageDir = Files.createDirectory(workDir.resolve("storage"));
    if (isTls()) {
      writeTlsAndAuthFiles();
    }
    port = freePort();
    Path config = workDir.resolve("config.yml");
    Files.writeString(config, config());
    Process started = ChildProcesses.start(
        new ProcessBuilder(binary.toString(), "serve", config.toString())
            .directory(workDir.toFile()));
    process = started;
    shutdownHook = new Thread(started::destroyForcibly, "registry-shutdown-" + started.pid());
    Runtime.getRuntime().addShutdownHook(shutdownHook);
    readers = List.of(reader(started.getInputStream(), "stdout"),
        reader(started.getErrorStream(), "stderr"));
    httpClient = newHttpClient();
    return awaitReady(started);
  }

  private boolean awaitReady(Process started) {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    // the probe uses the marker path so that it never shows up in requests()
    HttpRequest probe = HttpRequest.newBuilder(URI.create(url() + SYNC_PATH + "ready"))
        .timeout(Duration.ofSeconds(2)).GET().build();
    while (System.nanoTime() < deadline) {
      if (!started.isAlive()) {
        joinReaders();
        return false;
      }
      try {
        httpClient.send(probe, HttpResponse.BodyHandlers.discarding());
        return true;  // any status means it is serving
      } catch (IOException notYet) {
        sleep(Duration.ofMillis(20));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return false;
  }

  private String config() {
    StringBuilder yaml = new StringBuilder()
        .append("version: 0.1\n")
        .append("log:\n  level: info\n  formatter: json\n")
        .append("  accesslog:\n    disabled: false\n")
        .append("storage:\n  filesystem:\n    rootdirectory: '").append(storageDir).append("'\n")
        .append("  delete:\n    enabled: true\n")
        .append("  maintenance:\n    uploadpurging:\n      enabled: false\n")
        .append("http:\n  addr: 127.0.0.1:").append(port).append('\n')
        .append("  secret: ").append(randomToken()).append('\n');
    if (isTls()) {
      yaml.append("  tls:\n")
          .append("    certificate: '").append(workDir.resolve("server.pem")).append("'\n")
          .append("    key: '").append(workDir.resolve("server-key.pem")).append("'\n")
          .append("auth:\n  htpasswd:\n    realm: fairing4j-test\n")
          .append("    path: '").append(workDir.resolve("htpasswd")).append("'\n");
    }
    return yaml.toString();
  }

  private Thread reader(InputStream stream, String name) {
    Thread thread = new Thread(() -> {
      try (BufferedReader in =
          new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
        for (String line; (line = in.readLine()) != null; ) {
          record(line);
        }
      } catch (IOException closed) {
        // the process is gone; whatever it wrote has been read
      }
    }, "registry-" + name);
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  private void record(String line) {
    Matcher access = ACCESS_LOG.matcher(line);
    synchronized (logLock) {
      if (access.find()) {
        String target = access.group(2);
        int query = target.indexOf('?');
        String path = query < 0 ? target : target.substring(0, query);
        if (path.startsWith(SYNC_PATH)) {
          syncsSeen.add(path);
          logLock.notifyAll();
          return;
        }
        requests.add(new RegistryRequest(access.group(1), path, Integer.parseInt(access.group(3))));
      }
      output.add(line);
    }
  }

  /*
   * The registry writes an access-log line only after the response has gone out, so a client can
   * see its response before the line exists. Sending one marker request and waiting for its line
   * makes sure every earlier response's line has been read.
   */
  private void catchUpWithLog() {
    HttpClient client;
    String base;
    synchronized (this) {
      if (process == null) {
        return;
      }
      if (!process.isAlive()) {
        joinReaders();
        return;
      }
      client = httpClient;
      base = url();
    }
    String marker = SYNC_PATH + syncCounter.incrementAndGet();
    try {
      client.send(HttpRequest.newBuilder(URI.create(base + marker)).timeout(Duration.ofSeconds(5))
          .GET().build(), HttpResponse.BodyHandlers.discarding());
    } catch (IOException e) {
      throw new AssertionFailedError("the registry at " + base + " does not answer", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    long deadline = System.nanoTime() + LOG_CATCH_UP.toNanos();
    synchronized (logLock) {
      while (!syncsSeen.remove(marker)) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new AssertionFailedError("the registry's access log did not show " + marker);
        }
        try {
          logLock.wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  private void joinReaders() {
    for (Thread reader : readers) {
      try {
        reader.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static String randomToken() {
    byte[] bytes = new byte[16];
    new SecureRandom().nextBytes(bytes);
    StringBuilder hex = new StringBuilder();
    for (byte b : bytes) {
      hex.append(String.format("%02x", b));
    }
    return hex.toString();
  }

  private static void sleep(Duration duration) {
    try {
      Thread.sleep(duration.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void deleteRecursively(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> {
        try {
          Files.deleteIfExists(path);
        } catch (IOException ignored) {
          // best effort: a leftover temp file must not fail the test that used the registry
        }
      });
    } catch (IOException ignored) {
      // already gone
    }
  }
}
