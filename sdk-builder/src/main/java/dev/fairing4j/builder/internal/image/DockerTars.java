package dev.fairing4j.builder.internal.image;

import dev.fairing4j.core.InvalidInputException;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.zip.GZIPInputStream;

/**
 * Checks that a base-image tar is one Jib can read. {@code Jib.from(TarImage)} reads
 * {@code docker save} archives (with a top-level {@code manifest.json}) only, not OCI archives or
 * layout directories; telling the user which one they have, and how to convert it, beats Jib's
 * own error. Reads the tar headers only (the content is skipped).
 */
public final class DockerTars {
  private DockerTars() {}

  /**
   * The content of the archive's {@code manifest.json}: it names the config and layers by digest,
   * so it identifies the image without hashing the whole tar. Fails with an
   * {@link InvalidInputException} on field {@code field} unless Jib can read the archive.
   */
  public static byte[] check(String field, Path tar) {
    Path absolute = tar.toAbsolutePath().normalize();
    if (Files.isDirectory(absolute)) {
      throw InvalidInputException.of(field, "'" + absolute + "' is a directory (an OCI layout?)",
          "Jib reads docker-save tars only: skopeo copy oci:" + absolute + " docker-archive:"
              + absolute + ".tar:<name>:<tag>");
    }
    if (!Files.isRegularFile(absolute)) {
      throw InvalidInputException.of(field, "'" + absolute + "' does not exist",
          "give the path of a docker save archive");
    }
    Scan scan = scan(field, absolute);
    Set<String> names = scan.names();
    if (scan.manifest() == null) {
      boolean oci = names.contains("index.json") || names.contains("oci-layout");
      throw InvalidInputException.of(field, "'" + absolute + "' is " + (oci ? "an OCI archive"
          : "not a docker save archive (no manifest.json)"), "Jib reads docker-save tars only;"
          + " convert it: skopeo copy " + (oci ? "oci-archive:" : "<source>:") + absolute
          + " docker-archive:" + absolute.getFileName() + ".docker.tar:<name>:<tag>");
    }
    return scan.manifest();
  }

  private record Scan(Set<String> names, byte[] manifest) {}

  private static Scan scan(String field, Path tar) {
    Set<String> names = new HashSet<>();
    byte[] manifest = null;
    try (InputStream raw = new BufferedInputStream(Files.newInputStream(tar))) {
      raw.mark(2);
      boolean gzip = raw.read() == 0x1f && raw.read() == 0x8b;
      raw.reset();
      InputStream in = gzip ? new GZIPInputStream(raw) : raw;
      byte[] header = new byte[512];
      while (in.readNBytes(header, 0, 512) == 512) {
        if (header[0] == 0) {
          break;  // end-of-archive marker
        }
        String name = cString(header, 0, 100);
        String prefix = cString(header, 345, 155);
        String full = prefix.isEmpty() ? name : prefix + "/" + name;
        if (full.startsWith("./")) {
          full = full.substring(2);
        }
        if (!full.isEmpty() && !full.substring(0, full.length() - 1).contains("/")) {
          names.add(full.endsWith("/") ? full.substring(0, full.length() - 1) : full);
        }
        String sizeField = cString(header, 124, 12).trim();
        long size = sizeField.isEmpty() ? 0 : Long.parseLong(sizeField, 8);
        long padded = (size + 511) / 512 * 512;
        if (full.equals("manifest.json") && size < 1 << 20) {
          manifest = in.readNBytes((int) size);
          in.skipNBytes(padded - size);
        } else {
          in.skipNBytes(padded);
        }
      }
      return new Scan(names, manifest);
    } catch (IOException | NumberFormatException e) {
      throw InvalidInputException.of(field, "'" + tar + "' is not a readable tar archive: "
          + e.getMessage(), "give the output of docker save (or skopeo copy ... docker-archive:)",
          e);
    }
  }

  private static String cString(byte[] bytes, int offset, int length) {
    int end = offset;
    while (end < offset + length && bytes[end] != 0) {
      end++;
    }
    return new String(bytes, offset, end - offset, StandardCharsets.UTF_8);
  }
}
