package dev.fairing4j.deployer.local.internal.trainerstatus;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.deployer.local.internal.plan.JobPlan;
import dev.fairing4j.deployer.local.internal.plan.LocalKind;
import dev.fairing4j.deployer.local.internal.runtime.LaunchSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Where one TrainJob's status server listens and where its replicas find the CA and the token:
 * what Trainer's TrainJobStatus plugin injects into every trainer container
 * ({@code KUBEFLOW_TRAINER_SERVER_URL}, {@code _CA_CERT}, {@code _TOKEN}), with the controller's
 * service made {@code 127.0.0.1} and a free port. The files lie in {@code <job>/trainer-status},
 * which a sandboxed replica sees read-only at the pod's path.
 *
 * @param port the loopback port the server listens on
 * @param dir the host directory holding {@code ca.crt} and {@code token}
 * @param namespace the TrainJob's namespace
 * @param name the TrainJob's name
 */
public record StatusEndpoint(int port, Path dir, String namespace, String name) {
  /** The variable naming the endpoint, as the plugin names it. */
  public static final String URL_ENV = "KUBEFLOW_TRAINER_SERVER_URL";
  /** The variable naming the CA certificate file. */
  public static final String CA_CERT_ENV = "KUBEFLOW_TRAINER_SERVER_CA_CERT";
  /** The variable naming the bearer token file. */
  public static final String TOKEN_ENV = "KUBEFLOW_TRAINER_SERVER_TOKEN";
  /** Where a pod sees the plugin's projected volume. */
  public static final String MOUNT = "/var/run/secrets/kubeflow/trainer";
  static final String CA_FILE = "ca.crt";
  static final String TOKEN_FILE = "token";
  /** The server's key, beside the replicas' directory: a replica never sees it. */
  static final String KEY_FILE = "trainer-status.p12";
  private static final String DIR = "trainer-status";

  /**
   * The endpoint of {@code plan}'s job when it is a TrainJob, on a free port, its directory
   * made; empty for every other kind (the plugin is the Trainer's, for TrainJobs only).
   */
  public static Optional<StatusEndpoint> forPlan(JobPlan plan, Path jobDir) {
    if (plan.kind() != LocalKind.TRAINJOB) {
      return Optional.empty();
    }
    Path dir = jobDir.resolve(DIR);
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Optional.of(new StatusEndpoint(freePort(), dir, plan.namespace(), plan.name()));
  }

  /** The endpoint of a job whose server was given {@code port} at submit. */
  public static StatusEndpoint of(int port, Path jobDir, String namespace, String name) {
    return new StatusEndpoint(port, jobDir.resolve(DIR), namespace, name);
  }

  /**
   * Writes the job's CA, token and server key before any replica starts (see
   * {@link StatusCredentials}), from the TLS identity of the state directory {@code stateRoot}.
   *
   * @throws java.io.UncheckedIOException when the files cannot be written
   */
  public void issue(Path stateRoot) {
    try {
      StatusCredentials.issue(this, stateRoot);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Where the server's key lies. */
  Path keyStore() {
    return dir.resolveSibling(KEY_FILE);
  }

  /** The path the plugin's server serves, {@code statusserver.StatusUrl}. */
  public String path() {
    return path(namespace, name);
  }

  static String path(String namespace, String name) {
    return "/apis/trainer.kubeflow.org/v1alpha1/namespaces/" + namespace + "/trainjobs/" + name
        + "/status";
  }

  /** The URL a replica posts to. */
  public String url() {
    return "https://127.0.0.1:" + port + path();
  }

  /**
   * The three variables, the files named where the replica sees them: the pod's path in a
   * sandbox or a container, the host's own otherwise.
   */
  public Map<String, String> env(boolean bound) {
    String files = bound ? MOUNT : dir.toString();
    Map<String, String> env = new LinkedHashMap<>();
    env.put(URL_ENV, url());
    env.put(CA_CERT_ENV, files + "/" + CA_FILE);
    env.put(TOKEN_ENV, files + "/" + TOKEN_FILE);
    return env;
  }

  /** The read-only bind of the directory at the pod's path. */
  public LaunchSpec.Bind bind() {
    return new LaunchSpec.Bind(dir, MOUNT, true, false);
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw FairingException.of("allocate the Trainer status port", "127.0.0.1", e.getMessage(),
          "free some local ports", e);
    }
  }
}
