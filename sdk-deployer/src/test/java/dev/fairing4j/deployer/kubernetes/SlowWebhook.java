package dev.fairing4j.deployer.kubernetes;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import dev.fairing4j.core.testing.KubeApiServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * A validating admission webhook of the test's own that takes {@code delay} to allow each
 * ConfigMap created in one namespace: a request that sits in the API server for as long as the
 * test wants, holding its API Priority and Fairness seat. It serves HTTPS with the test API
 * server's own certificate (valid for 127.0.0.1), so the server trusts it with its CA.
 */
final class SlowWebhook implements AutoCloseable {
  private static final Pattern UID = Pattern.compile("\"uid\"\\s*:\\s*\"([^\"]+)\"");

  private final KubeApiServer server;
  private final HttpsServer https;
  private final String name;
  private final CountDownLatch called = new CountDownLatch(1);

  private SlowWebhook(KubeApiServer server, String namespace, Duration delay) throws Exception {
    this.server = server;
    this.name = "slow-" + namespace;
    List<String> pem = server.servingCertificateAndKeyPem();
    https = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    https.setHttpsConfigurator(new HttpsConfigurator(tls(pem.get(0), pem.get(1))));
    https.setExecutor(Executors.newCachedThreadPool());
    https.createContext("/", exchange -> {
      String review = new String(exchange.getRequestBody().readAllBytes(),
          StandardCharsets.UTF_8);
      called.countDown();
      PlayedOperator.sleep(delay);
      Matcher uid = UID.matcher(review.substring(review.indexOf("\"request\"")));
      byte[] answer = ("{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\","
          + "\"response\":{\"uid\":\"" + (uid.find() ? uid.group(1) : "") + "\","
          + "\"allowed\":true}}").getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, answer.length);
      exchange.getResponseBody().write(answer);
      exchange.close();
    });
    https.start();
    String url = "https://127.0.0.1:" + https.getAddress().getPort() + "/";
    server.request("POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations",
        Map.of("apiVersion", "admissionregistration.k8s.io/v1",
            "kind", "ValidatingWebhookConfiguration", "metadata", Map.of("name", name),
            "webhooks", List.of(Map.of("name", "slow.fairing4j.dev",
                "clientConfig", Map.of("url", url, "caBundle", Base64.getEncoder()
                    .encodeToString(server.caPem().getBytes(StandardCharsets.US_ASCII))),
                "rules", List.of(Map.of("operations", List.of("CREATE"),
                    "apiGroups", List.of(""), "apiVersions", List.of("v1"),
                    "resources", List.of("configmaps"))),
                "namespaceSelector", Map.of("matchLabels",
                    Map.of("kubernetes.io/metadata.name", namespace)),
                "failurePolicy", "Ignore", "sideEffects", "None",
                "admissionReviewVersions", List.of("v1"),
                "timeoutSeconds", (int) Math.min(30, delay.toSeconds() + 5)))));
  }

  /** A webhook holding each ConfigMap creation in {@code namespace} for {@code delay}. */
  static SlowWebhook start(KubeApiServer server, String namespace, Duration delay) {
    try {
      return new SlowWebhook(server, namespace, delay);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("cannot start the webhook", e);
    }
  }

  /** Waits until the API server has called the webhook. */
  void awaitCalled() throws InterruptedException {
    if (!called.await(60, java.util.concurrent.TimeUnit.SECONDS)) {
      throw new AssertionError("the API server did not call the webhook within 60 s");
    }
  }

  @Override
  public void close() {
    server.send("DELETE", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/"
        + name, null);
    https.stop(0);
  }

  private static SSLContext tls(String certificatePem, String keyPem)
      throws GeneralSecurityException, IOException {
    Certificate certificate = CertificateFactory.getInstance("X.509").generateCertificate(
        new ByteArrayInputStream(certificatePem.getBytes(StandardCharsets.US_ASCII)));
    String base64 = keyPem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
    PrivateKey key = KeyFactory.getInstance("EC").generatePrivate(
        new PKCS8EncodedKeySpec(Base64.getDecoder().decode(base64)));
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setKeyEntry("server", key, new char[0], new Certificate[] {certificate});
    KeyManagerFactory keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    keys.init(store, new char[0]);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys.getKeyManagers(), null, null);
    return context;
  }
}
