package dev.fairing4j.examples;

import dev.fairing4j.core.testing.TestWheels;
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

  /**
   * A Dockerfile project in {@code dir}: under {@code wheels/} pip's wheel and a wheel of
   * {@code fairing_probe} whose {@code GREETING} is {@code greeting}; {@code train.py} holding
   * {@code script}; and a Dockerfile on {@code ARG BASE} that copies the wheels, runs {@code run}
   * (its {@code PIP} replaced by the path of pip in the image), puts {@code /opt/deps} on
   * {@code PYTHONPATH} and runs train.py with {@code python}. Returns the Dockerfile.
   */
  static Path project(Path dir, String greeting, String script, String run, String python)
      throws IOException {
    Path wheels = Files.createDirectories(dir.resolve("wheels"));
    TestWheels.write(wheels, "fairing_probe", greeting);
    String pip = copyInto(wheels);
    Files.writeString(dir.resolve("train.py"), script);
    return Files.writeString(dir.resolve("Dockerfile"), """
        ARG BASE
        FROM ${BASE}
        COPY wheels/ /wheels/
        %s
        ENV PYTHONPATH=/opt/deps
        COPY train.py /app/
        CMD ["%s", "-u", "/app/train.py"]
        """.formatted(run.replace("PIP", "/wheels/" + pip + "/pip"), python));
  }
}
