package dev.fairing4j.core.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * Writes a real, tiny pure-Python wheel that pip installs offline ({@code --find-links} or a
 * local index), so dependency tests need no network and no package they do not make themselves.
 */
public final class TestWheels {
  private TestWheels() {}

  /**
   * Writes {@code <module>-1.0-py3-none-any.whl} into {@code dir}: project {@code <module>} with
   * underscores as dashes, version 1.0, one module whose {@code GREETING} is {@code greeting}.
   *
   * @return the wheel file
   */
  public static Path write(Path dir, String module, String greeting) throws IOException {
    String info = module + "-1.0.dist-info/";
    Map<String, String> entries = new LinkedHashMap<>();
    entries.put(module + "/__init__.py", "GREETING = '" + greeting + "'\n");
    entries.put(info + "METADATA", "Metadata-Version: 2.1\nName: " + module.replace('_', '-')
        + "\nVersion: 1.0\n");
    entries.put(info + "WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        + "Tag: py3-none-any\n");
    entries.put(info + "RECORD", module + "/__init__.py,,\n" + info + "METADATA,,\n" + info
        + "WHEEL,,\n" + info + "RECORD,,\n");
    Files.createDirectories(dir);
    Path file = dir.resolve(module + "-1.0-py3-none-any.whl");
    try (OutputStream out = Files.newOutputStream(file);
        ZipOutputStream zip = new ZipOutputStream(out)) {
      for (Map.Entry<String, String> entry : entries.entrySet()) {
        zip.putNextEntry(new ZipEntry(entry.getKey()));
        zip.write(entry.getValue().getBytes(StandardCharsets.UTF_8));
        zip.closeEntry();
      }
    }
    return file;
  }

  /**
   * Lays {@code wheel} out as a PEP 503 simple index under {@code root}
   * ({@code root/<project>/index.html} linking {@code root/<project>/<wheel>}), the form of a
   * {@code file://} index: pip reads a directory's {@code index.html}, not its listing.
   *
   * @return the index's root, for {@code file://} + it
   */
  public static Path index(Path root, Path wheel) throws IOException {
    String project = wheel.getFileName().toString().split("-")[0].replace('_', '-');
    Path dir = Files.createDirectories(root.resolve(project));
    Files.copy(wheel, dir.resolve(wheel.getFileName()));
    String name = wheel.getFileName().toString();
    Files.writeString(dir.resolve("index.html"), "<!DOCTYPE html><html><body>\n<a href=\""
        + name + "\">" + name + "</a>\n</body></html>\n");
    return root;
  }
}
