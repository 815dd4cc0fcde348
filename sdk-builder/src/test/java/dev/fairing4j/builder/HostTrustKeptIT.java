package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.Secret;
import dev.fairing4j.core.testing.RegistryExtension;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code trustedCertificates(..)} in an SDK embedded in someone else's JVM: Jib trusts only the
 * JVM's default SSLContext, so the default has to change, but only by ADDING the CA. What the
 * host set up before must still work afterwards, and the change is announced once at WARN:
 * <ul>
 *   <li>the trust store it named with {@code javax.net.ssl.trustStore} (holding the CA of a
 *       second real registry, and the certificate of a TLS server that wants client
 *       certificates);</li>
 *   <li>the client certificate it presents from {@code javax.net.ssl.keyStore} (that server, a
 *       JDK {@code SSLServerSocket} in the host JVM, refuses a client without it);</li>
 *   <li>its {@code javax.net.ssl.*} system properties, unchanged.</li>
 * </ul>
 *
 * <p>Runs in a child JVM started with the host's properties, because they must be in place
 * before anything in the JVM touches TLS. The server and client key pairs come from the JDK's
 * {@code keytool}.
 */
@Timeout(180)
class HostTrustKeptIT {
  private static final String BUILD_PASSWORD = "Tr0ub4dor-build";
  private static final String HOST_PASSWORD = "Tr0ub4dor-host";
  private static final String STORE_PASSWORD = "st0re-pass";

  /** The registry the build pushes to, with a private CA passed to trustedCertificates(..). */
  @RegisterExtension
  static final RegistryExtension BUILD = RegistryExtension.tlsWithAuth("alice", BUILD_PASSWORD);
  /** A registry the host already trusts through its own trust store. */
  @RegisterExtension
  static final RegistryExtension HOST = RegistryExtension.tlsWithAuth("bob", HOST_PASSWORD);

  @TempDir Path dir;

  /**
   * The host: checks its connections with the JVM's default TLS before and after two builds
   * with the build registry's CA. Arguments: target repository, CA file, user, password, the
   * host registry's URL, the build registry's URL, cache directory, the mutual-TLS server's key
   * store and trust store, and their password.
   */
  public static final class EmbeddingHost {
    public static void main(String[] args) throws Exception {
      Map<String, String> before = sslProperties();
      int mtlsPort = startMutualTlsServer(Path.of(args[7]), Path.of(args[8]), args[9]);
      System.out.println("host.before=" + status(args[4]));
      System.out.println("build.before=" + status(args[5]));
      System.out.println("mtls.before=" + mutualTls(mtlsPort));
      JibImageBuilder builder = Builders.scratch().pushTo(args[0])
          .trustedCertificates(Path.of(args[1])).credentials(args[2], Secret.of(args[3]))
          .baseLayerCache(Path.of(args[6]));
      for (String content : List.of("one\n", "two\n")) {
        System.out.println("built=" + builder.build(BuildContext.empty().withFile("/app/x.txt",
            ContextFile.ofText(content)), ProgressListener.NONE).digest().orElseThrow());
      }
      System.out.println("host.after=" + status(args[4]));
      System.out.println("build.after=" + status(args[5]));
      System.out.println("mtls.after=" + mutualTls(mtlsPort));
      Map<String, String> after = sslProperties();
      System.out.println("properties.same=" + before.equals(after));
      System.out.println("properties.after=" + after.keySet());
    }

    /** The registry's answer to {@code GET /v2/} over the JVM's default TLS, or the failure. */
    private static String status(String url) {
      try {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10))
            .build();
        return String.valueOf(client.send(HttpRequest.newBuilder(URI.create(url + "/v2/"))
            .timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.discarding()).statusCode());
      } catch (Exception e) {
        return "failed " + e.getClass().getSimpleName();
      }
    }

    /** A line from the mutual-TLS server over the JVM's default TLS, or the failure. */
    private static String mutualTls(int port) {
      try (Socket plain = new Socket(InetAddress.getLoopbackAddress(), port);
          SSLSocket socket = (SSLSocket) SSLContext.getDefault().getSocketFactory()
              .createSocket(plain, "127.0.0.1", port, true)) {
        socket.setSoTimeout(10_000);
        socket.startHandshake();
        // with TLS 1.3 a refused client certificate shows on the first read
        String line = new BufferedReader(new InputStreamReader(socket.getInputStream(),
            StandardCharsets.UTF_8)).readLine();
        return line == null ? "failed closed" : line;
      } catch (Exception e) {
        return "failed " + e.getClass().getSimpleName();
      }
    }

    /** A TLS server on loopback that answers "ok" only to clients with a trusted certificate. */
    private static int startMutualTlsServer(Path keyStore, Path trustStore, String password)
        throws Exception {
      KeyManagerFactory keys = KeyManagerFactory.getInstance(
          KeyManagerFactory.getDefaultAlgorithm());
      keys.init(load(keyStore, password), password.toCharArray());
      TrustManagerFactory trust = TrustManagerFactory.getInstance(
          TrustManagerFactory.getDefaultAlgorithm());
      trust.init(load(trustStore, password));
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(keys.getKeyManagers(), trust.getTrustManagers(), null);
      SSLServerSocket server = (SSLServerSocket) context.getServerSocketFactory()
          .createServerSocket(0, 10, InetAddress.getLoopbackAddress());
      server.setNeedClientAuth(true);
      Thread serving = new Thread(() -> {
        while (true) {
          try (Socket client = server.accept()) {
            client.setSoTimeout(10_000);
            client.getOutputStream().write("ok\n".getBytes(StandardCharsets.UTF_8));
            client.getOutputStream().flush();
          } catch (IOException refusedOrGone) {
            // a client without a certificate fails its handshake: the client side reports it
          }
        }
      }, "mutual-tls");
      serving.setDaemon(true);
      serving.start();
      return server.getLocalPort();
    }

    private static KeyStore load(Path file, String password) throws Exception {
      KeyStore store = KeyStore.getInstance("PKCS12");
      try (InputStream in = Files.newInputStream(file)) {
        store.load(in, password.toCharArray());
      }
      return store;
    }

    private static Map<String, String> sslProperties() {
      Map<String, String> found = new TreeMap<>();
      System.getProperties().forEach((key, value) -> {
        if (key.toString().startsWith("javax.net.ssl.")) {
          found.put(key.toString(), value.toString());
        }
      });
      return found;
    }
  }

  @Test
  void theCaIsAddedToWhatTheHostHadAndTheHostsSettingsStay() throws Exception {
    Path server = keytool("-genkeypair", "-alias", "server", "-dname", "CN=127.0.0.1",
        "-ext", "san=ip:127.0.0.1", "-keystore", "server.p12");
    Path client = keytool("-genkeypair", "-alias", "client", "-dname", "CN=embedding host",
        "-keystore", "client.p12");
    keytool("-exportcert", "-rfc", "-alias", "server", "-keystore", "server.p12", "-file",
        "server.pem");
    keytool("-exportcert", "-rfc", "-alias", "client", "-keystore", "client.p12", "-file",
        "client.pem");
    Path serverTrust = keytool("-importcert", "-noprompt", "-alias", "client", "-file",
        "client.pem", "-keystore", "server-trust.p12");
    keytool("-importcert", "-noprompt", "-alias", "server", "-file", "server.pem", "-keystore",
        "host-trust.p12");
    Path hostTrust = keytool("-importcert", "-noprompt", "-alias", "registry", "-file",
        HOST.caCertificatePem().orElseThrow().toString(), "-keystore", "host-trust.p12");

    FreshJvm.Result result = FreshJvm.run(List.of(), Map.of(), List.of(
            "-Djavax.net.ssl.trustStore=" + hostTrust,
            "-Djavax.net.ssl.trustStorePassword=" + STORE_PASSWORD,
            "-Djavax.net.ssl.trustStoreType=PKCS12",
            "-Djavax.net.ssl.keyStore=" + client,
            "-Djavax.net.ssl.keyStorePassword=" + STORE_PASSWORD,
            "-Djavax.net.ssl.keyStoreType=PKCS12"),
        EmbeddingHost.class, BUILD.hostPort() + "/team/embedded",
        BUILD.caCertificatePem().orElseThrow().toString(), "alice", BUILD_PASSWORD, HOST.url(),
        BUILD.url(), dir.resolve("cache").toString(), server.toString(), serverTrust.toString(),
        STORE_PASSWORD);
    String output = result.output();

    assertThat(result.exitCode()).as(output).isZero();
    assertThat(output).as("before: what the host set up, not the private CA")
        .contains("host.before=401", "mtls.before=ok", "build.before=failed");
    assertThat(output).containsPattern("built=sha256:[0-9a-f]{64}");
    assertThat(output).as("after: all of it")
        .contains("host.after=401", "mtls.after=ok", "build.after=401");
    assertThat(output).contains("properties.same=true", "properties.after=["
        + "javax.net.ssl.keyStore, javax.net.ssl.keyStorePassword, javax.net.ssl.keyStoreType,"
        + " javax.net.ssl.trustStore, javax.net.ssl.trustStorePassword,"
        + " javax.net.ssl.trustStoreType]");
    List<String> warnings = output.lines().filter(line -> line.contains("WARN")
        && line.contains("TrustedCertificates")).toList();
    assertThat(warnings).as(output).hasSize(1);
    assertThat(warnings.get(0)).contains("default SSLContext", "process-wide", "1 CA",
        hostTrust.toString());
    assertThat(output).doesNotContain(BUILD_PASSWORD).doesNotContain(STORE_PASSWORD);
  }

  /** Runs the JDK's keytool in {@code dir} on PKCS12 stores; returns the store it wrote. */
  private Path keytool(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
    command.addAll(List.of(args));
    if (args[0].equals("-genkeypair")) {
      command.addAll(List.of("-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2"));
    }
    command.addAll(List.of("-storetype", "PKCS12", "-storepass", STORE_PASSWORD));
    Process process = new ProcessBuilder(command).directory(dir.toFile())
        .redirectErrorStream(true).start();
    process.getOutputStream().close();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor()).as(String.join(" ", command) + "\n" + output).isZero();
    return dir.resolve(command.get(command.indexOf("-keystore") + 1));
  }
}
