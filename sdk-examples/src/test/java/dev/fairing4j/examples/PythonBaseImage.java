package dev.fairing4j.examples;

import dev.fairing4j.core.testing.Tools;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.opentest4j.AssertionFailedError;

/**
 * A small container base image with the host's python3 and nothing else, made without internet:
 * buildah copies {@code /usr/bin/python3.X}, the shared libraries {@code ldd} lists and the
 * standard library (minus tests, IDLE, tkinter and the like) into an empty image. The archive is
 * cached under {@code ~/.cache/fairing4j/test-bases}, keyed by the Python version, so reruns only
 * push it.
 */
final class PythonBaseImage {
  /** Standard-library directories no test script imports; left out to keep the image small. */
  private static final List<String> UNUSED = List.of("test", "idlelib", "tkinter", "turtledemo",
      "ensurepip", "lib2to3", "pydoc_data", "unittest", "distutils", "site-packages",
      "dist-packages");

  private PythonBaseImage() {}

  /**
   * Pushes the base to {@code repository} (a loopback registry) and returns it pinned by digest,
   * {@code repository@sha256:...}.
   */
  static String pushTo(String repository) throws IOException {
    Path archive = archive();
    Path digestFile = Files.createTempFile("fairing4j-base", ".digest");
    try {
      run(List.of(Tools.require("skopeo", "skopeo").toString(), "copy", "--quiet",
          "--dest-tls-verify=false", "--digestfile", digestFile.toString(),
          "oci-archive:" + archive, "docker://" + repository + ":python"));
      return repository + "@" + Files.readString(digestFile).trim();
    } finally {
      Files.deleteIfExists(digestFile);
    }
  }

  /** The cached OCI archive of the base, built first if missing. */
  static synchronized Path archive() throws IOException {
    Path python = python();
    String version = run(List.of(python.toString(), "--version")).trim().replace("Python ", "");
    Path cache = Path.of(System.getProperty("user.home"), ".cache", "fairing4j", "test-bases");
    // "-ssl": the bases before held no libssl for the ssl module; a cached one is not reused
    Path archive = cache.resolve("python-" + version + "-ssl.oci.tar");
    if (Files.isRegularFile(archive)) {
      return archive;
    }
    Files.createDirectories(cache);
    Path work = Files.createTempDirectory(cache, "build");
    try {
      Path tmp = work.resolve("image.tar");
      build(python, work, tmp);
      Files.move(tmp, archive, StandardCopyOption.ATOMIC_MOVE);
      return archive;
    } finally {
      deleteTree(work);
    }
  }

  private static void build(Path python, Path work, Path out) throws IOException {
    List<String> buildah = List.of(Tools.require("buildah", "buildah").toString(),
        "--root", work.resolve("root").toString(), "--runroot", work.resolve("run").toString(),
        "--storage-driver", "vfs");
    String container = run(concat(buildah, "from", "scratch")).trim();
    Path root = Path.of(run(concat(buildah, "mount", container)).trim());
    Path exe = python.toRealPath();
    copy(exe, root);
    String name = exe.getFileName().toString();
    Files.createSymbolicLink(root.resolve("usr/bin/python3"), Path.of(name));
    Files.createSymbolicLink(root.resolve("usr/bin/python"), Path.of(name));
    Matcher libs = Pattern.compile("(/\\S+\\.so[.\\d]*)").matcher(run(List.of(
        Tools.require("ldd", "libc-bin").toString(), exe.toString())));
    while (libs.find()) {
      copy(Path.of(libs.group(1)), root);
    }
    Path stdlib = Path.of("/usr/lib", name);
    Files.createDirectories(root.resolve("usr/lib"));
    run(List.of("cp", "-a", stdlib.toString(), root.resolve("usr/lib").toString()));
    for (String unused : UNUSED) {
      deleteTree(root.resolve("usr/lib").resolve(name).resolve(unused));
    }
    // The libraries of the ssl and hashlib modules (libssl, libcrypto): a script that posts over
    // HTTPS (a TrainJob's progress) imports ssl.
    try (Stream<Path> modules = Files.list(root.resolve("usr/lib").resolve(name)
        .resolve("lib-dynload"))) {
      for (Path module : modules.filter(p -> p.getFileName().toString().startsWith("_ssl.")
          || p.getFileName().toString().startsWith("_hashlib.")).toList()) {
        Matcher needed = Pattern.compile("(/\\S+\\.so[.\\d]*)").matcher(run(List.of(
            Tools.require("ldd", "libc-bin").toString(), module.toString())));
        while (needed.find()) {
          copy(Path.of(needed.group(1)), root);
        }
      }
    }
    try (Stream<Path> configs = Files.list(root.resolve("usr/lib").resolve(name))) {
      for (Path config : configs.filter(p -> p.getFileName().toString().startsWith("config-"))
          .toList()) {
        deleteTree(config);
      }
    }
    Files.createDirectories(root.resolve("tmp"));
    run(concat(buildah, "config", "--env",
        "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", container));
    run(concat(buildah, "commit", "--quiet", container, "fairing4j-test-base"));
    run(concat(buildah, "push", "--quiet", "fairing4j-test-base", "oci-archive:" + out));
  }

  private static Path python() {
    return Stream.of("/usr/bin/python3.11", "/usr/bin/python3").map(Path::of)
        .filter(Files::isExecutable).findFirst()
        .orElseThrow(() -> new AssertionFailedError("no /usr/bin/python3; install it:"
            + " apt-get install python3"));
  }

  /** Copies a host file to the same path under {@code root}, following links. */
  private static void copy(Path file, Path root) throws IOException {
    Path target = root.resolve(file.toString().substring(1));
    Files.createDirectories(target.getParent());
    Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.COPY_ATTRIBUTES);
  }

  private static List<String> concat(List<String> head, String... tail) {
    List<String> all = new ArrayList<>(head);
    all.addAll(List.of(tail));
    return all;
  }

  /** Runs a command to the end; its output, or an assertion failure with it. */
  static String run(List<String> command) throws IOException {
    return run(command, true);
  }

  /**
   * Runs a command to the end and returns its output (stdout and stderr); a non-zero exit is a
   * failure only when {@code checked} (ldd, say, fails on files that are no ELF objects).
   */
  static String run(List<String> command, boolean checked) throws IOException {
    Path out = Files.createTempFile("fairing4j-cmd", ".out");
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(out.toFile()).start();
      if (!p.waitFor(5, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new AssertionFailedError(command + " did not finish in 5 minutes");
      }
      String output = Files.readString(out, StandardCharsets.UTF_8);
      if (checked && p.exitValue() != 0) {
        throw new AssertionFailedError(command + " exited with " + p.exitValue() + ": "
            + output);
      }
      return output;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionFailedError("interrupted: " + command);
    } finally {
      Files.deleteIfExists(out);
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
