package dev.fairing4j.examples;

import dev.fairing4j.core.FairingException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The Python training scripts the examples run, shipped inside this jar. A preprocessor needs a
 * real file, so {@link #extract(String)} writes a script once to a content-addressed cache
 * directory and returns its path: the same script always gets the same path (and the same image
 * digest), from a checkout, a JShell session or a notebook kernel alike.
 */
public final class ExampleScripts {
  private static final String RESOURCE_DIR = "/dev/fairing4j/examples/scripts/";

  private ExampleScripts() {}

  /** Writes the bundled script {@code name} (e.g. {@code mnist_ddp.py}) to the cache; its path. */
  public static Path extract(String name) {
    byte[] content = read(name);
    return write(cacheRoot().resolve(sha256(content).substring(0, 16)), name, content);
  }

  /**
   * Writes the bundled scripts {@code names} side by side into one directory of the cache (a
   * predictor and the training script whose network it imports); the directory.
   */
  public static Path extractTogether(String... names) {
    java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
    java.util.Map<String, byte[]> contents = new java.util.LinkedHashMap<>();
    for (String name : names) {
      byte[] content = read(name);
      contents.put(name, content);
      all.writeBytes(name.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      all.writeBytes(content);
    }
    Path dir = cacheRoot().resolve(sha256(all.toByteArray()).substring(0, 16));
    contents.forEach((name, content) -> write(dir, name, content));
    return dir;
  }

  private static Path write(Path dir, String name, byte[] content) {
    Path target = dir.resolve(name);
    try {
      if (!Files.isRegularFile(target)) {
        Files.createDirectories(dir);
        Path temporary = Files.createTempFile(dir, name, ".tmp");
        Files.write(temporary, content);
        Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
      }
      return target;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write example script to " + target, e);
    }
  }

  private static byte[] read(String name) {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    // JShell and notebook kernels load classes through their own loaders: try both.
    try (InputStream in = open(loader, name)) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static InputStream open(ClassLoader loader, String name) {
    InputStream in = loader == null ? null
        : loader.getResourceAsStream(RESOURCE_DIR.substring(1) + name);
    if (in == null) {
      in = ExampleScripts.class.getResourceAsStream(RESOURCE_DIR + name);
    }
    if (in == null) {
      throw FairingException.of("find example script", name, "it is not in the sdk-examples jar",
          "use one of the scripts under sdk-examples/src/main/python", null);
    }
    return in;
  }

  private static Path cacheRoot() {
    String xdg = System.getenv("XDG_CACHE_HOME");
    Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg)
        : Path.of(System.getProperty("user.home"), ".cache");
    return base.resolve("fairing4j").resolve("example-scripts");
  }

  private static String sha256(byte[] content) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
