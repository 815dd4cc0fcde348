package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fairing4j.builder.Builders;
import dev.fairing4j.builder.JibImageBuilder;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.Pipeline;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.RegistryCredentials;
import dev.fairing4j.core.Secret;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.KubeApiServer.User;
import dev.fairing4j.core.testing.RealKubernetes;
import dev.fairing4j.core.testing.RegistryExtension;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.kubeflow.PyTorchJobDeployer;
import dev.fairing4j.deployer.kubernetes.KubernetesCluster;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Known, unique secret values go in through every door a user has (registry password, kubeconfig
 * bearer token and client key, git token, pull credentials, env from a Secret) and a whole
 * failing and succeeding run goes through; everything a user or a CI log could see is captured:
 * stdout, stderr (where slf4j-simple writes), java.util.logging, exception messages with their
 * stack traces and causes, every user-facing {@code toString()}, and the dry-run YAML. None of it
 * may hold a secret, raw or base64-encoded.
 */
@Timeout(120)
class SecretsNeverLeakIT {
  private static final String USER = "leaktest";
  // unique per run, so a match can only come from this test's injection
  private static final String PASSWORD = "regpw-" + UUID.randomUUID();
  private static final String WRONG_PASSWORD = "wrongpw-" + UUID.randomUUID();
  private static final String GIT_TOKEN = "gittok-" + UUID.randomUUID();
  private static final String PULL_PASSWORD = "pullpw-" + UUID.randomUUID();

  static {
    // log everything the SDK says; only effective when slf4j-simple is not initialised yet
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "debug");
  }

  @RegisterExtension
  static final RegistryExtension REGISTRY = RegistryExtension.tlsWithAuth(USER, PASSWORD);
  // a real API server: the token below is one it accepts, so requests really authenticate
  // controllers: the garbage collector finishes the job's Foreground deletion, as on any cluster
  @RegisterExtension static final RealKubernetes K8S = RealKubernetes.shared().withControllers();

  @TempDir Path dir;

  @Test
  void noSecretAppearsInAnyOutput() throws Exception {
    Path ca = REGISTRY.caCertificatePem().orElseThrow();
    // a real EC key, so that the kubeconfig parses; its PEM is the "client key data" secret
    String keyPem = Files.readString(ca.resolveSibling("server-key.pem"));
    String certPem = Files.readString(ca.resolveSibling("server.pem"));
    Path kubeconfig = Files.writeString(dir.resolve("kubeconfig"), kubeconfig(certPem, keyPem));
    Path train = Files.writeString(dir.resolve("train.py"), "print('hi')\n");

    Map<String, String> secrets = new LinkedHashMap<>();
    secrets.put("registry password", PASSWORD);
    secrets.put("wrong registry password", WRONG_PASSWORD);
    secrets.put("kubeconfig token", K8S.server().token(User.SDK));
    secrets.put("API server token of another user", K8S.server().token(User.FIXTURE));
    secrets.put("git token", GIT_TOKEN);
    secrets.put("pull password", PULL_PASSWORD);
    // the key's base64 body, line by line, so that any fragment of it counts
    keyPem.lines().filter(l -> !l.startsWith("-----") && l.length() >= 16)
        .forEach(l -> secrets.put("client key line", l));

    StringBuilder seen = new StringBuilder();
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    PrintStream out = System.out;
    PrintStream err = System.err;
    Logger julRoot = Logger.getLogger("");
    Handler jul = new CapturingHandler(seen);
    julRoot.addHandler(jul);
    Level julLevel = julRoot.getLevel();
    julRoot.setLevel(Level.ALL);
    PrintStream capture = new PrintStream(console, true, StandardCharsets.UTF_8);
    System.setOut(capture);
    System.setErr(capture);
    try {
      LoggerFactory.getLogger(SecretsNeverLeakIT.class).info("capture started");
      exercise(seen, train, kubeconfig, ca);
    } finally {
      System.setOut(out);
      System.setErr(err);
      julRoot.removeHandler(jul);
      julRoot.setLevel(julLevel);
    }
    seen.append("\n--- console ---\n").append(console.toString(StandardCharsets.UTF_8));
    String text = seen.toString();

    // the capture must have caught real output, or an empty capture would pass trivially
    assertThat(text).contains("capture started", "kind: PyTorchJob", "401", "Secret",
        REGISTRY.hostPort(), "git.example.com", "127.0.0.1:9",
        // google-http-client's request log at Level.ALL, with the header masked (HttpLogGuard)
        "Authorization: <Not Logged>");
    List<String> leaks = new ArrayList<>();
    secrets.forEach((what, value) -> {
      for (String form : forms(value)) {
        int at = text.indexOf(form);
        if (at >= 0) {
          leaks.add(what + " as '" + form + "' near: "
              + text.substring(Math.max(0, at - 200), Math.min(text.length(), at + 80)));
        }
      }
    });
    assertThat(leaks).as("secrets found in captured output").isEmpty();
  }

  /** Runs everything that could print a secret and appends what it returns or throws. */
  private void exercise(StringBuilder seen, Path train, Path kubeconfig, Path ca)
      throws IOException {
    KubernetesCluster cluster = Clusters.kubernetes().kubeconfig(kubeconfig);
    String target = REGISTRY.hostPort() + "/team/leak";
    JibImageBuilder wrong = Builders.scratch().pushTo(target).trustedCertificates(ca)
        .credentials(USER, Secret.of(WRONG_PASSWORD));
    JibImageBuilder right = wrong.credentials(USER, Secret.of(PASSWORD));
    PyTorchJobDeployer deployer = Deployers.pyTorchJob("leak").workers(1).on(cluster)
        .mutate(Mutators.envFromSecret("API_KEY", "api-key", "value"));
    var git = Preprocessors.git("https://" + USER + ":" + GIT_TOKEN + "@git.example.com/t/r.git")
        .credentials(USER, Secret.of(GIT_TOKEN));
    Pipeline base = Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(Preprocessors.python(train)).deployer(deployer);
    ProgressListener printing = event -> {
      synchronized (seen) {
        seen.append("event: ").append(event).append('\n');
      }
    };

    // a push with the wrong password: a 401 the user must see, without either password
    Throwable refused = catchThrowable(() -> base.builder(wrong).progress(printing).run());
    assertThat(refused).isInstanceOf(FairingException.class);
    record(seen, refused);

    // the dry run renders the image-pull Secret from the build's credentials
    String yaml = base.builder(right).dryRun();
    seen.append("\n--- dryRun ---\n").append(yaml);
    String explicitPull = base.builder(right).deployer(deployer.pullCredentials(
        new RegistryCredentials(REGISTRY.hostPort(), USER, Secret.of(PULL_PASSWORD)))).dryRun();
    seen.append("\n--- dryRun with pull credentials ---\n").append(explicitPull);

    // a push with the right password and a submission to the real API server
    TrainingJob job = base.builder(right).progress(printing).run();
    seen.append("\n--- toString ---\n");
    for (Object o : List.of(base, base.builder(right), wrong, right, deployer, cluster, git, job,
        new RegistryCredentials(REGISTRY.hostPort(), USER, Secret.of(PULL_PASSWORD)),
        Secret.of(K8S.server().token(User.SDK)))) {
      seen.append(o).append('\n');
    }
    seen.append(job.status()).append('\n');
    Throwable timeout = catchThrowable(() -> job.waitForCompletion(Duration.ofMillis(300)));
    record(seen, timeout);
    job.delete();

    // a git checkout that cannot reach its server: the URL with its token is in the message path
    record(seen, catchThrowable(() -> base.preprocessor(git.entry("train.py")).builder(right)
        .dryRun()));
    // a kubeconfig whose server refuses connections: the submission fails after the build
    Path unreachable = Files.writeString(dir.resolve("kubeconfig-down"),
        Files.readString(kubeconfig).replace(K8S.server().url(), "http://127.0.0.1:9"));
    record(seen, catchThrowable(() -> base.builder(right).deployer(
        deployer.on(Clusters.kubernetes().kubeconfig(unreachable))).run()));
  }

  private static void record(StringBuilder seen, Throwable thrown) {
    seen.append("\n--- exception ---\n").append(thrown).append('\n');
    StringWriter trace = new StringWriter();
    if (thrown != null) {
      thrown.printStackTrace(new PrintWriter(trace));
    }
    seen.append(trace);
  }

  /** The value raw, base64 (also as "user:value", an HTTP basic header), and URL-encoded. */
  private static List<String> forms(String value) {
    Base64.Encoder b64 = Base64.getEncoder();
    List<String> forms = new ArrayList<>(List.of(value,
        b64.encodeToString(value.getBytes(StandardCharsets.UTF_8)),
        b64.encodeToString((USER + ":" + value).getBytes(StandardCharsets.UTF_8)),
        java.net.URLEncoder.encode(value, StandardCharsets.UTF_8)));
    // base64 of a longer text holds the value's encoding shifted by 0, 1 or 2 bytes; the middle
    // of each shifted encoding is stable whatever surrounds it
    for (int shift = 1; shift <= 2; shift++) {
      String encoded = b64.encodeToString(("x".repeat(shift) + value)
          .getBytes(StandardCharsets.UTF_8));
      if (encoded.length() > 16) {
        forms.add(encoded.substring(4, encoded.length() - 4));
      }
    }
    return forms;
  }

  private String kubeconfig(String certPem, String keyPem) {
    Base64.Encoder b64 = Base64.getEncoder();
    return """
        apiVersion: v1
        kind: Config
        clusters:
          - name: real
            cluster:
              server: %s
              certificate-authority-data: %s
        users:
          - name: real
            user:
              token: %s
              client-certificate-data: %s
              client-key-data: %s
        contexts:
          - name: real
            context:
              cluster: real
              user: real
              namespace: %s
        current-context: real
        """.formatted(K8S.server().url(),
        b64.encodeToString(K8S.server().caPem().getBytes(StandardCharsets.UTF_8)),
        K8S.server().token(User.SDK),
        b64.encodeToString(certPem.getBytes(StandardCharsets.UTF_8)),
        b64.encodeToString(keyPem.getBytes(StandardCharsets.UTF_8)), K8S.namespace());
  }

  /** Appends every java.util.logging record (client libraries log there too). */
  private static final class CapturingHandler extends Handler {
    private final StringBuilder sink;

    CapturingHandler(StringBuilder sink) {
      this.sink = sink;
      setLevel(Level.ALL);
    }

    @Override
    public void publish(LogRecord record) {
      synchronized (sink) {
        sink.append("jul: ").append(record.getLoggerName()).append(' ')
            .append(record.getMessage()).append(' ')
            .append(java.util.Arrays.toString(record.getParameters())).append('\n');
        if (record.getThrown() != null) {
          StringWriter trace = new StringWriter();
          record.getThrown().printStackTrace(new PrintWriter(trace));
          sink.append(trace);
        }
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }
}
