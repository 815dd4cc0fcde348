package dev.fairing4j.builder;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/** Pure-Python wheels made by hand, so tests install real packages without an index. */
final class TestWheels {
  private TestWheels() {}

  /**
   * A wheel of one module {@code module} (distribution {@code module} with '_' as '-') whose
   * {@code VALUE} is {@code value}, written into {@code directory} under its proper file name.
   */
  static Path write(Path directory, String module, String version, int value) throws Exception {
    String dist = module + "-" + version;
    Map<String, String> files = new LinkedHashMap<>();
    files.put(module + "/__init__.py", "VALUE = " + value + "\n");
    files.put(dist + ".dist-info/METADATA", "Metadata-Version: 2.1\nName: "
        + module.replace('_', '-') + "\nVersion: " + version + "\n");
    files.put(dist + ".dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: fairing4j-test\n"
        + "Root-Is-Purelib: true\nTag: py3-none-any\n");
    StringBuilder record = new StringBuilder();
    for (Map.Entry<String, String> entry : files.entrySet()) {
      byte[] bytes = entry.getValue().getBytes(StandardCharsets.UTF_8);
      String hash = Base64.getUrlEncoder().withoutPadding().encodeToString(
          MessageDigest.getInstance("SHA-256").digest(bytes));
      record.append(entry.getKey()).append(",sha256=").append(hash).append(',')
          .append(bytes.length).append('\n');
    }
    record.append(dist).append(".dist-info/RECORD,,\n");
    files.put(dist + ".dist-info/RECORD", record.toString());
    ByteArrayOutputStream zip = new ByteArrayOutputStream();
    try (ZipOutputStream out = new ZipOutputStream(zip)) {
      for (Map.Entry<String, String> entry : files.entrySet()) {
        out.putNextEntry(new ZipEntry(entry.getKey()));
        out.write(entry.getValue().getBytes(StandardCharsets.UTF_8));
        out.closeEntry();
      }
    }
    Files.createDirectories(directory);
    Path file = directory.resolve(dist + "-py3-none-any.whl");
    try (OutputStream out = Files.newOutputStream(file)) {
      zip.writeTo(out);
    }
    return file;
  }
}
