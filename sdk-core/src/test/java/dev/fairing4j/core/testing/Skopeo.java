package dev.fairing4j.core.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.opentest4j.AssertionFailedError;

/**
 * Runs {@code skopeo}, an image tool that shares no code with Jib, to check independently what a
 * registry really holds. TLS verification is off because test registries use throw-away CAs.
 *
 * <p>Use {@link RegistryExtension#skopeoInspect(String)} for images in a fixture registry: it adds
 * the registry's credentials by itself.
 */
public final class Skopeo {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long TIMEOUT_SECONDS = 120;

  private Skopeo() {}

  /** {@code skopeo inspect} of {@code imageRef} ({@code host:port/repo:tag} or {@code ...@sha256:...}). */
  public static JsonNode inspect(String imageRef) {
    return json(run(inspectArgs(imageRef, null, null, false)));
  }

  /** {@code skopeo inspect --creds user:password}. */
  public static JsonNode inspect(String imageRef, String user, String password) {
    return json(run(inspectArgs(imageRef, user, password, false)));
  }

  /** {@code skopeo inspect --raw}: the manifest or index exactly as the registry serves it. */
  public static JsonNode inspectRaw(String imageRef) {
    return json(run(inspectArgs(imageRef, null, null, true)));
  }

  /** {@code skopeo inspect --raw --creds user:password}. */
  public static JsonNode inspectRaw(String imageRef, String user, String password) {
    return json(run(inspectArgs(imageRef, user, password, true)));
  }

  /**
   * Runs {@code skopeo} with {@code args} and returns its standard output.
   *
   * @throws AssertionFailedError when skopeo is missing (with the apt-get hint), fails or hangs
   */
  public static String run(List<String> args) {
    Path skopeo = Tools.require("skopeo", "skopeo");
    List<String> command = new ArrayList<>();
    command.add(skopeo.toString());
    command.addAll(args);
    try {
      Process process = new ProcessBuilder(command).start();
      process.getOutputStream().close();
      CompletableFuture<String> stdout = readAsync(process.getInputStream());
      CompletableFuture<String> stderr = readAsync(process.getErrorStream());
      if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
        throw new AssertionFailedError("skopeo did not finish in " + TIMEOUT_SECONDS + " s: "
            + redact(command));
      }
      if (process.exitValue() != 0) {
        throw new AssertionFailedError("skopeo exited with " + process.exitValue() + ": "
            + redact(command) + "\n" + stderr.join());
      }
      return stdout.join();
    } catch (IOException e) {
      throw new AssertionFailedError("cannot run " + redact(command), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionFailedError("interrupted while running skopeo", e);
    }
  }

  private static List<String> inspectArgs(String imageRef, String user, String password,
      boolean raw) {
    List<String> args = new ArrayList<>(List.of("inspect", "--tls-verify=false"));
    if (raw) {
      args.add("--raw");
    }
    if (user != null) {
      args.add("--creds");
      args.add(user + ":" + password);
    }
    args.add(imageRef.startsWith("docker://") ? imageRef : "docker://" + imageRef);
    return args;
  }

  private static JsonNode json(String text) {
    try {
      return JSON.readTree(text);
    } catch (IOException e) {
      throw new AssertionFailedError("skopeo printed no JSON: " + text, e);
    }
  }

  // a thread per stream: on the common pool two blocking reads can starve each other
  private static CompletableFuture<String> readAsync(InputStream in) {
    CompletableFuture<String> result = new CompletableFuture<>();
    Thread reader = new Thread(() -> {
      try (in) {
        result.complete(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        result.complete("<unreadable: " + e + ">");
      }
    }, "skopeo-output");
    reader.setDaemon(true);
    reader.start();
    return result;
  }

  // failure messages end up in CI logs: never print a password
  private static String redact(List<String> command) {
    List<String> shown = new ArrayList<>(command);
    int creds = shown.indexOf("--creds");
    if (creds >= 0 && creds + 1 < shown.size()) {
      String value = shown.get(creds + 1);
      shown.set(creds + 1, value.substring(0, value.indexOf(':') + 1) + "***");
    }
    return String.join(" ", shown);
  }
}
