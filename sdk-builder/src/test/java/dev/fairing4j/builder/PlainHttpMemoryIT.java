package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.Secret;
import dev.fairing4j.core.testing.RegistryExtension;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * A JVM that once spoke plain HTTP to a registry because one build said {@code allowInsecure()}
 * must not keep doing so for a later build that did not: that one would send its credentials in
 * clear text.
 *
 * <p>How the situation is produced with the fixtures at hand: plain HTTP is allowed without
 * opt-in for loopback registries, and the fixture registry listens on {@code 127.0.0.1}, so it
 * is reached under a name that is not loopback to the SDK, {@code registry.test}. A child JVM
 * resolves that name to {@code 127.0.0.1} through a hosts file ({@code -Djdk.net.hosts.file},
 * read once when the JVM starts, hence the child). In that one JVM a first build pushes with
 * {@code allowInsecure()} (plain HTTP, as asked); the child then waits until the test has marked
 * the registry's access log, and a second builder without {@code allowInsecure()} but with
 * credentials builds for the same registry. It must fail for want of verified HTTPS, and the
 * registry must see no request from it at all: a plain-HTTP registry logs only requests it could
 * parse, so a TLS hello (the only thing a correct client sends) never shows up there.
 */
@Timeout(180)
class PlainHttpMemoryIT {
  @RegisterExtension static final RegistryExtension REGISTRY = RegistryExtension.plain();

  private static final String PASSWORD = "n0t-f0r-plain-http";

  @TempDir Path dir;

  /** The child: two builds in one JVM, with a pause for the test in between. */
  public static final class TwoBuilds {
    public static void main(String[] args) throws Exception {
      String registry = args[0];
      Path cache = Path.of(args[1]);
      ImageRef first = Builders.scratch().pushTo(registry + "/team/first").allowInsecure()
          .baseLayerCache(cache).build(BuildContext.empty().withFile("/app/first.txt",
              ContextFile.ofText("first\n")), ProgressListener.NONE);
      System.out.println("first=" + first.digest().orElseThrow());
      System.out.flush();
      new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
      try {
        ImageRef second = Builders.scratch().pushTo(registry + "/team/second")
            .credentials("alice", Secret.of(PASSWORD)).baseLayerCache(cache)
            .build(BuildContext.empty().withFile("/app/second.txt",
                ContextFile.ofText("second\n")), ProgressListener.NONE);
        System.out.println("second=pushed " + second);
      } catch (FairingException e) {
        System.out.println("second=" + e.getClass().getSimpleName() + ": " + e.getMessage());
      }
    }
  }

  @Test
  void aLaterBuildWithoutAllowInsecureNeverTalksPlainHttp() throws Exception {
    Path hosts = Files.writeString(dir.resolve("hosts"), "127.0.0.1 registry.test\n");
    String registry = "registry.test:" + REGISTRY.hostPort().split(":")[1];
    Process child = FreshJvm.start(List.of(), Map.of(),
        List.of("-Djdk.net.hosts.file=" + hosts), TwoBuilds.class, registry,
        dir.resolve("cache").toString());
    List<String> output = new ArrayList<>();
    try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
        StandardCharsets.UTF_8))) {
      for (String line; (line = out.readLine()) != null; ) {
        output.add(line);
        if (line.startsWith("first=")) {
          break;
        }
      }
      assertThat(output).as("the first build (allowInsecure) pushed")
          .anyMatch(line -> line.matches("first=sha256:[0-9a-f]{64}"));
      assertThat(REGISTRY.requests()).as("it reached the registry over plain HTTP")
          .anyMatch(request -> request.path().startsWith("/v2/team/first/"));

      REGISTRY.clearRequests();
      try (Writer in = new OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8)) {
        in.write("go\n");
      }
      for (String line; (line = out.readLine()) != null; ) {
        output.add(line);
      }
    } finally {
      if (!child.waitFor(60, TimeUnit.SECONDS)) {
        child.destroyForcibly();
      }
    }

    String all = String.join("\n", output);
    assertThat(REGISTRY.requests()).as("plain-HTTP requests of the second build; child:\n" + all)
        .isEmpty();
    assertThat(all).contains("second=ImageBuildException", "cannot talk verified HTTPS",
        "trustedCertificates").doesNotContain(PASSWORD);
  }
}
