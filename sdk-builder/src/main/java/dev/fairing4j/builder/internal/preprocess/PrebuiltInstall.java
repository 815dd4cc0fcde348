package dev.fairing4j.builder.internal.preprocess;

import dev.fairing4j.builder.PrebuiltDependencies;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.cache.Caches;
import dev.fairing4j.core.cache.internal.CacheEntries;
import dev.fairing4j.core.cache.internal.CacheUse;
import dev.fairing4j.core.internal.Sha256;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Installs a {@code requirements.txt} on this machine with {@code pip install --target}, once per
 * set of inputs: the result is kept under the cache in a directory named by the hash of the
 * requirements file, the wheelhouse's listing and the install settings, and moved there only when
 * pip succeeded, so a directory found there is complete.
 */
public final class PrebuiltInstall {
  private static final Logger LOG = LoggerFactory.getLogger(PrebuiltInstall.class);
  /** Changes whenever the way the set is installed changes; part of every key. */
  private static final String VERSION = "pip-target-1";
  private static final long TIMEOUT_MINUTES = 30;

  private PrebuiltInstall() {}

  /**
   * The directory holding the installed packages of {@code requirements}, installing them first
   * when no earlier build did.
   *
   * @throws InvalidInputException (field {@code python}) when the interpreter is missing
   * @throws FairingException when pip fails (its output's end in the message)
   */
  public static Path install(Path requirements, PrebuiltDependencies how) {
    if (!Files.isExecutable(how.python())) {
      throw InvalidInputException.of("python", "'" + how.python() + "' cannot be run",
          "install Python and pip (apt-get install python3-pip) or name another interpreter"
              + " with .python(Path)");
    }
    Path root = how.cacheDirectory().orElseGet(() -> Caches.user().directory(Caches.SITE_PACKAGES));
    try (CacheUse.AutoCloseableHold held = CacheUse.hold(root)) {
      return installHoldingCache(requirements, how, root);
    }
  }

  private static Path installHoldingCache(Path requirements, PrebuiltDependencies how,
      Path root) {
    Path done = root.resolve(key(requirements, how));
    if (Files.isDirectory(done)) {
      CacheEntries.touch(done);  // reused: the last to be pruned
      return done;
    }
    Path work;
    try {
      Files.createDirectories(root);
      work = Files.createTempDirectory(root, done.getFileName() + ".tmp-");
    } catch (IOException e) {
      throw FairingException.of("install requirements", root.toString(), e.toString(),
          "make the cache directory writable, or set another with cacheDirectory(..)", e);
    }
    try {
      runPip(requirements, how, work);
      try {
        Files.move(work, done, StandardCopyOption.ATOMIC_MOVE);
      } catch (FileAlreadyExistsException | DirectoryNotEmptyException
          | AtomicMoveNotSupportedException e) {
        // a parallel build installed the same set: keep theirs
        deleteTree(work);
      }
      return done;
    } catch (IOException e) {
      deleteTree(work);
      throw FairingException.of("install requirements", requirements.toString(), e.toString(),
          "check the cache directory " + root, e);
    } catch (RuntimeException e) {
      deleteTree(work);
      throw e;
    }
  }

  private static void runPip(Path requirements, PrebuiltDependencies how, Path target)
      throws IOException {
    List<String> command = new ArrayList<>(List.of(how.python().toString(), "-m", "pip",
        "install", "--disable-pip-version-check", "--no-input", "--no-compile",
        "--no-warn-script-location", "--target", target.toString()));
    how.wheelhouse().ifPresent(dir -> command.addAll(List.of("--no-index", "--find-links",
        dir.toString())));
    how.indexUrl().ifPresent(url -> command.addAll(List.of("--index-url", url)));
    if (how.pythonVersion().isPresent() || how.platform().isPresent()) {
      // pip installs for another interpreter only from wheels it need not build
      command.add("--only-binary=:all:");
      how.pythonVersion().ifPresent(v -> command.addAll(List.of("--python-version", v,
          "--implementation", "cp")));
      how.platform().ifPresent(p -> command.addAll(List.of("--platform", p)));
    }
    command.addAll(List.of("-r", requirements.toString()));
    LOG.info("installing {} into the image's requirements layer: {}", requirements,
        String.join(" ", command));
    Path output = Files.createTempFile("fairing4j-pip", ".log");
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(output.toFile()).start();
      boolean ended;
      try {
        ended = process.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES);
      } catch (InterruptedException e) {
        process.destroyForcibly();
        Thread.currentThread().interrupt();
        throw FairingException.of("install requirements", requirements.toString(),
            "interrupted", null, e);
      }
      if (!ended) {
        process.destroyForcibly();
        throw FairingException.of("install requirements", requirements.toString(),
            "pip did not finish in " + TIMEOUT_MINUTES + " minutes", "check the index or"
                + " wheelhouse; a wheelhouse needs no network", null);
      }
      if (process.exitValue() != 0) {
        String text = Files.readString(output, StandardCharsets.UTF_8);
        throw FairingException.of("install requirements", requirements.toString(),
            "pip exited with " + process.exitValue() + ": " + tail(text),
            text.contains("No module named pip") ? "install pip: apt-get install python3-pip"
                : how.wheelhouse().isPresent() ? "every requirement (and each dependency) needs"
                    + " a wheel in " + how.wheelhouse().get() + " for the target Python and"
                    + " platform: python3 -m pip wheel -r " + requirements.getFileName()
                    + " -w " + how.wheelhouse().get()
                : "check that the index has wheels for the target Python and platform", null);
      }
    } finally {
      Files.deleteIfExists(output);
    }
  }

  /** The last lines of pip's output: the error is at the end. */
  private static String tail(String text) {
    List<String> lines = text.lines().filter(line -> !line.isBlank()).toList();
    return String.join("\n", lines.subList(Math.max(0, lines.size() - 6), lines.size()));
  }

  /**
   * What names an installed set: the requirements' bytes, every wheel in the wheelhouse by name,
   * size and modification time (hashing hundreds of megabytes of wheels on every build would
   * cost more than it protects against), and the settings.
   */
  static String key(Path requirements, PrebuiltDependencies how) {
    try {
      MessageDigest md = Sha256.newDigest();
      List<String> parts = new ArrayList<>(List.of(VERSION, how.python().toString(),
          how.indexUrl().orElse(""), how.pythonVersion().orElse(""), how.platform().orElse("")));
      if (how.wheelhouse().isPresent()) {
        try (Stream<Path> wheels = Files.list(how.wheelhouse().get())) {
          for (Path wheel : wheels.sorted(Comparator.comparing(Path::toString)).toList()) {
            parts.add(wheel.getFileName() + " " + Files.size(wheel) + " "
                + Files.getLastModifiedTime(wheel).toMillis());
          }
        }
      }
      Sha256.updateParts(md, parts);
      md.update(Files.readAllBytes(requirements));
      return Sha256.hex(md).substring(0, 32);
    } catch (IOException e) {
      throw InvalidInputException.of("requirements", "cannot read " + requirements + " or the"
          + " wheelhouse: " + e.getMessage(), "check that both exist and are readable", e);
    }
  }

  private static void deleteTree(Path directory) {
    try (Stream<Path> paths = Files.walk(directory)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      LOG.debug("cannot remove {} ({})", directory, e.toString());
    }
  }
}
