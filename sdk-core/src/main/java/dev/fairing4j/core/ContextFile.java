package dev.fairing4j.core;

import dev.fairing4j.core.internal.Sha256;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Objects;
import java.util.Optional;

/**
 * One file of a {@link BuildContext}: where its bytes come from (a file on disk or bytes generated
 * in memory, such as a script converted from a notebook), which {@link Layer} it belongs to, and
 * whether it is executable. Immutable; the digest is computed from content only, never from
 * timestamps or the source path, so two machines with the same code get the same image.
 */
public final class ContextFile {
  private final Path source;
  private final byte[] content;
  private final Layer layer;
  private final boolean executable;
  private volatile String sha256;

  private ContextFile(Path source, byte[] content, Layer layer, boolean executable) {
    this.source = source;
    this.content = content;
    this.layer = layer;
    this.executable = executable;
  }

  /** A file read from {@code source} when the image is built, in the code layer. */
  public static ContextFile of(Path source) {
    Objects.requireNonNull(source, "source");
    return new ContextFile(source.toAbsolutePath().normalize(), null, Layer.CODE,
        false);
  }

  /** A file with the given bytes (copied), in the code layer. */
  public static ContextFile of(byte[] content) {
    Objects.requireNonNull(content, "content");
    return new ContextFile(null, content.clone(), Layer.CODE, false);
  }

  /** A UTF-8 text file, in the code layer. */
  public static ContextFile ofText(String text) {
    return of(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /** The same file in another layer. */
  public ContextFile inLayer(Layer newLayer) {
    return new ContextFile(source, content, Objects.requireNonNull(newLayer, "layer"), executable);
  }

  /** The same file with the executable bit set or cleared. */
  public ContextFile executable(boolean isExecutable) {
    return new ContextFile(source, content, layer, isExecutable);
  }

  /** The file on disk this entry reads, if it is not generated in memory. */
  public Optional<Path> source() {
    return Optional.ofNullable(source);
  }

  /** The layer this file goes into. */
  public Layer layer() {
    return layer;
  }

  /** True when the file gets mode 755 rather than 644 in the image. */
  public boolean isExecutable() {
    return executable;
  }

  /** Opens the content; the caller closes the stream. */
  public InputStream open() throws IOException {
    return source != null ? Files.newInputStream(source) : new ByteArrayInputStream(content);
  }

  /** The content as bytes (reads the file). */
  public byte[] bytes() {
    try {
      return source != null ? Files.readAllBytes(source) : content.clone();
    } catch (IOException e) {
      throw unreadable(e);
    }
  }

  /** Size in bytes. */
  public long size() {
    try {
      return source != null ? Files.size(source) : content.length;
    } catch (IOException e) {
      throw unreadable(e);
    }
  }

  // The file may have been moved or made unreadable since the context was prepared.
  private FairingException unreadable(IOException e) {
    return FairingException.of("read context file", String.valueOf(source), e.toString(),
        "check that the file exists and is readable, then prepare the context again", e);
  }

  /** Lower-case hex SHA-256 of the content, computed once. */
  public String sha256() {
    String digest = sha256;
    if (digest == null) {
      try (InputStream in = open()) {
        MessageDigest md = Sha256.newDigest();
        byte[] buffer = new byte[64 * 1024];
        for (int n; (n = in.read(buffer)) > 0; ) {
          md.update(buffer, 0, n);
        }
        digest = Sha256.hex(md);
        sha256 = digest;
      } catch (IOException e) {
        throw unreadable(e);
      }
    }
    return digest;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof ContextFile that && layer == that.layer
        && executable == that.executable && Objects.equals(source, that.source)
        && java.util.Arrays.equals(content, that.content);
  }

  @Override
  public int hashCode() {
    return Objects.hash(source, layer, executable) * 31 + java.util.Arrays.hashCode(content);
  }

  @Override
  public String toString() {
    return (source != null ? source.toString() : "<" + content.length + " bytes>")
        + (layer == Layer.CODE ? "" : " [" + layer + "]") + (executable ? " (x)" : "");
  }
}
