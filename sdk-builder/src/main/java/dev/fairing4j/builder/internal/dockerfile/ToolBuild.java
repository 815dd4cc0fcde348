package dev.fairing4j.builder.internal.dockerfile;

import dev.fairing4j.builder.ImageFormat;
import dev.fairing4j.builder.internal.Json;
import dev.fairing4j.builder.internal.image.BaseImage;
import dev.fairing4j.builder.internal.image.BuildSettings;
import dev.fairing4j.builder.internal.image.RegistryCredential;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Dockerfile build with a daemonless tool, {@code buildah bud} or {@code podman build}: the
 * context (the files {@link DockerfilePlan#toolContext} lists) written to a private
 * directory, the build run with the tool's layer cache ({@code --layers}; a changed file rebuilds
 * from the step that copies it), chroot isolation (no runtime or namespaces needed for
 * {@code RUN}), and fixed timestamps, then pushed with the same credentials, TLS rules and CAs
 * the Jib path uses, passed in an auth file readable only by the owner and removed afterwards.
 * Each {@code STEP} line reaches the caller as progress; a failed build reports the step it
 * stopped at and its last lines.
 */
public final class ToolBuild {
  private static final Logger LOG = LoggerFactory.getLogger(ToolBuild.class);
  private static final int KEPT_LINES = 25;

  private final String tool;
  private final Path executable;

  /**
   * @param tool {@code buildah} or {@code podman}
   * @param executable its path
   */
  public ToolBuild(String tool, Path executable) {
    this.tool = tool;
    this.executable = executable;
  }

  /** {@code buildah} or {@code podman}. */
  public String tool() {
    return tool;
  }

  /**
   * Builds {@code plan}'s Dockerfile over its {@link DockerfilePlan#toolContext() context} and
   * pushes (or writes) the image. The tool gets the text the plan was made from, so the image
   * is what its tag was derived from even when the file changed since.
   *
   * @param dockerfile where the Dockerfile is, for messages
   * @param settings the target, format, credentials and TLS rules, on the Dockerfile's base
   * @param planned the reference the image gets: the target with its content tag
   * @return the image, pinned to its digest
   */
  public ImageRef build(Path dockerfile, DockerfilePlan plan, BuildSettings settings,
      ImageRef planned, Map<String, String> environment, ProgressListener progress) {
    Path work;
    try {
      work = Files.createTempDirectory("fairing4j-" + tool + "-");
    } catch (IOException e) {
      throw FairingException.of("build image", "cannot create a directory for the build"
          + " context: " + e.getMessage(), "check free space and permissions of "
          + System.getProperty("java.io.tmpdir"));
    }
    List<String> secrets = new ArrayList<>();
    try {
      Path context = work.resolve("context");
      writeContext(context, plan.toolContext());
      Path dockerfileCopy = Files.writeString(work.resolve("Dockerfile"), plan.text(),
          StandardCharsets.UTF_8);
      List<String> access = access(work, settings, planned, environment, secrets);
      String name = planned.name() + ":" + planned.tag().orElseThrow();
      // Pushed by its ID, never tagged in the tool's storage: builds leave no names behind
      // (the layer cache's images are unnamed too; `buildah prune` clears them).
      Path imageId = work.resolve("image-id");
      List<String> build = new ArrayList<>(List.of(executable.toString(),
          tool.equals("buildah") ? "bud" : "build", "--isolation", "chroot", "--layers",
          // A failed RUN leaves its working container and root file system otherwise.
          "--force-rm",
          "--timestamp", "0", "--format", settings.format() == ImageFormat.OCI ? "oci" : "docker",
          "-f", dockerfileCopy.toString(), "--iidfile", imageId.toString()));
      plan.buildArgs().forEach((arg, value) -> build.addAll(List.of("--build-arg",
          arg + "=" + value)));
      build.addAll(access);
      build.add(context.toString());
      run(build, "build " + dockerfile.getFileName(), progress, secrets, true);
      String local = Files.readString(imageId, StandardCharsets.UTF_8).strip();

      if (settings.tar().isPresent()) {
        Path tar = settings.tar().get();
        Files.deleteIfExists(tar);
        String transport = settings.format() == ImageFormat.OCI ? "oci-archive:"
            : "docker-archive:";
        run(List.of(executable.toString(), "push", "--quiet", local, transport + tar + ":"
            + name), "write " + tar.getFileName(), progress, secrets, false);
        progress.onEvent(new ProgressEvent.Note("wrote " + tar + " (" + name + ") with "
            + tool));
        return planned;
      }
      Path digestFile = work.resolve("digest");
      List<String> push = new ArrayList<>(List.of(executable.toString(), "push", "--quiet",
          "--digestfile", digestFile.toString()));
      push.addAll(access);
      push.addAll(List.of(local, "docker://" + planned.reference()));
      run(push, "push " + planned.reference(), progress, secrets, false);
      String digest = Files.readString(digestFile, StandardCharsets.UTF_8).strip();
      for (String tag : settings.tags()) {
        List<String> again = new ArrayList<>(List.of(executable.toString(), "push", "--quiet"));
        again.addAll(access);
        again.addAll(List.of(local, "docker://" + planned.name() + ":" + tag));
        run(again, "tag " + tag, progress, secrets, false);
      }
      ImageRef pushed = planned.withDigest(digest);
      progress.onEvent(new ProgressEvent.Note("pushed " + pushed.reference() + " with "
          + tool));
      return pushed;
    } catch (IOException e) {
      throw FairingException.of("build image", tool + " failed: " + e.getMessage(),
          "check free space and permissions of " + System.getProperty("java.io.tmpdir"));
    } finally {
      deleteTree(work);
    }
  }

  /**
   * The TLS and credential options of a build and a push: plain HTTP where the Jib path would
   * allow it, the user's CAs, and an owner-only auth file with the target's and the base's
   * credentials when there are any (else the tool's own configuration applies).
   */
  private List<String> access(Path work, BuildSettings settings, ImageRef planned,
      Map<String, String> environment, List<String> secrets) throws IOException {
    List<String> options = new ArrayList<>();
    if (settings.insecureAllowed()) {
      options.add("--tls-verify=false");
    }
    if (!settings.trustedCertificates().isEmpty()) {
      Path certs = Files.createDirectories(work.resolve("certs"));
      int i = 0;
      for (Path pem : settings.trustedCertificates()) {
        Files.copy(pem, certs.resolve("ca-" + i++ + ".crt"));
      }
      options.addAll(List.of("--cert-dir", certs.toString()));
    }
    Map<String, RegistryCredential> auths = new LinkedHashMap<>();
    if (settings.pushes()) {
      settings.targetCredentials().resolve(planned.reference(), environment)
          .ifPresent(c -> auths.put(planned.registry(), c));
    }
    if (settings.base() instanceof BaseImage.FromRegistry base) {
      settings.effectiveBaseCredentials().resolve(base.image().reference(), environment)
          .ifPresent(c -> auths.putIfAbsent(base.image().registry(), c));
    }
    if (!auths.isEmpty()) {
      Map<String, Object> entries = new LinkedHashMap<>();
      for (Map.Entry<String, RegistryCredential> auth : auths.entrySet()) {
        String password = auth.getValue().password().reveal();
        secrets.add(password);
        String token = Base64.getEncoder().encodeToString((auth.getValue().username() + ":"
            + password).getBytes(StandardCharsets.UTF_8));
        secrets.add(token);
        entries.put(auth.getKey(), Map.of("auth", token));
      }
      Path file = work.resolve("auth.json");
      Files.createFile(file, PosixFilePermissions.asFileAttribute(
          PosixFilePermissions.fromString("rw-------")));
      Files.write(file, Json.MAPPER.writeValueAsBytes(Map.of("auths", entries)));
      options.addAll(List.of("--authfile", file.toString()));
    }
    return options;
  }

  private static void writeContext(Path context, Map<String, ContextFile> files)
      throws IOException {
    Files.createDirectories(context);
    for (Map.Entry<String, ContextFile> entry : files.entrySet()) {
      Path target = context.resolve(entry.getKey()).normalize();
      if (!target.startsWith(context)) {
        continue;  // ContextView names nothing outside; a guard, not a path
      }
      Files.createDirectories(target.getParent());
      try (InputStream in = entry.getValue().open()) {
        Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
      }
      Files.setPosixFilePermissions(target, PosixFilePermissions.fromString(
          entry.getValue().isExecutable() ? "rwxr-xr-x" : "rw-r--r--"));
    }
  }

  /** Runs {@code command}; its output lines go to the log, STEP lines to {@code progress}. */
  private void run(List<String> command, String what, ProgressListener progress,
      List<String> secrets, boolean steps) {
    Process process;
    try {
      process = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw FairingException.of("build image", "cannot start " + executable + ": "
          + e.getMessage(), "check that " + tool + " runs: " + executable + " --version");
    }
    Deque<String> last = new ArrayDeque<>();
    String step = null;
    try (BufferedReader out = new BufferedReader(new InputStreamReader(
        process.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        String shown = mask(line, secrets);
        LOG.debug("{}: {}", tool, shown);
        if (last.size() == KEPT_LINES) {
          last.removeFirst();
        }
        last.addLast(shown);
        if (steps && shown.startsWith("STEP ")) {
          step = shown;
          progress.onEvent(new ProgressEvent.Note(tool + ": " + shown));
        } else if (steps && shown.startsWith("--> Using cache")) {
          progress.onEvent(new ProgressEvent.Note(tool + ": " + shown));
        }
      }
      int status = process.waitFor();
      if (status != 0) {
        throw FairingException.of("build image", tool + " failed to " + what
            + (step == null ? "" : " at " + step) + " (exit status " + status + "); its last"
            + " lines:\n  " + String.join("\n  ", last), step != null && step.contains(": RUN ")
            ? "the RUN command failed in the image: fix it in the Dockerfile (the lines above"
                + " are its output)" : "read the lines above; the same command fails with "
                + tool + " by hand");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + tool + "'s output", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw FairingException.of("build image", tool + " was interrupted at " + what,
          "run the build again");
    } finally {
      if (process.isAlive()) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
      }
    }
  }

  private static String mask(String line, List<String> secrets) {
    String masked = line;
    for (String secret : secrets) {
      if (!secret.isEmpty()) {
        masked = masked.replace(secret, "****");
      }
    }
    return masked;
  }

  private static void deleteTree(Path root) {
    try (Stream<Path> walk = Files.walk(root)) {
      walk.sorted(Comparator.reverseOrder()).forEach(path -> {
        try {
          Files.deleteIfExists(path);
        } catch (IOException e) {
          LOG.debug("cannot remove {} ({})", path, e.toString());
        }
      });
    } catch (IOException e) {
      LOG.debug("cannot remove {} ({})", root, e.toString());
    }
  }
}
