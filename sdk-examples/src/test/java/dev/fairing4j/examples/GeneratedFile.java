package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A checked-in file that a test generates from the code (the API lists, the reference pages):
 * the test fails while the file differs from what it would generate, and rewrites it when run
 * with {@code FAIRING4J_API_UPDATE=1}, so a change to what it describes shows in review.
 */
final class GeneratedFile {
  private GeneratedFile() {}

  /** Whether this run rewrites the generated files instead of only comparing them. */
  static boolean updating() {
    return "1".equals(System.getenv("FAIRING4J_API_UPDATE"));
  }

  /**
   * Fails unless {@code file} holds exactly {@code generated}; {@code regenerate} is the command
   * that rewrites it (run with {@code FAIRING4J_API_UPDATE=1}).
   */
  static void assertCurrent(Path file, String generated, String regenerate) throws IOException {
    if (updating()) {
      Files.writeString(file, generated, StandardCharsets.UTF_8);
    }
    assertThat(file).as("%s; create it with FAIRING4J_API_UPDATE=1 %s", file, regenerate)
        .exists();
    assertThat(Files.readString(file, StandardCharsets.UTF_8)).as("%s is generated: regenerate"
        + " it with FAIRING4J_API_UPDATE=1 %s", file, regenerate).isEqualTo(generated);
  }
}
