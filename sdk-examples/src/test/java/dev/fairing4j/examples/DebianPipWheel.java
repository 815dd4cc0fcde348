package dev.fairing4j.examples;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.stream.Stream;

/**
 * pip itself as a wheel (Debian's {@code python3-pip-whl}), for Dockerfile tests whose base has
 * an interpreter and no pip: {@code RUN ["python", "/wheels/<wheel>/pip", "install", ...]} runs
 * pip from the wheel, with no index and no network.
 */
final class DebianPipWheel {
  private DebianPipWheel() {}

  /** Copies the wheel into {@code directory}; returns its file name. */
  static String copyInto(Path directory) throws IOException {
    Path pip;
    try (Stream<Path> found = Files.list(Path.of("/usr/share/python-wheels"))) {
      pip = found.filter(p -> p.getFileName().toString().startsWith("pip-")).findFirst()
          .orElseThrow(() -> new AssertionError("no pip wheel in /usr/share/python-wheels;"
              + " install it: apt-get install python3-pip-whl"));
    }
    Files.createDirectories(directory);
    Files.copy(pip, directory.resolve(pip.getFileName()), StandardCopyOption.REPLACE_EXISTING);
    return pip.getFileName().toString();
  }
}
