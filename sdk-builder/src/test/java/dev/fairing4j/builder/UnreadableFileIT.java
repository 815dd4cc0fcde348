package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file the build cannot read fails validation with a fix. Root reads anything, so as root the
 * check runs in a JVM started without the capabilities that let root ignore file modes.
 */
class UnreadableFileIT {
  @TempDir Path dir;

  /** Prepares a context in this JVM and prints the validation error's field and message. */
  public static final class Prepare {
    public static void main(String[] args) {
      try {
        Preprocessors.python(Path.of(args[0])).files(Path.of(args[1])).prepare();
        System.out.println("prepared");
      } catch (InvalidInputException e) {
        System.out.println("field=" + e.field());
        System.out.println("message=" + e.getMessage());
      }
    }
  }

  @Test
  void anUnreadableFileIsInvalidInputWithAFix() throws Exception {
    Path entry = Files.writeString(dir.resolve("train.py"), "print(1)\n");
    Path secret = Files.writeString(dir.resolve("weights.bin"), "w");
    Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("---------"));

    if (!"root".equals(System.getProperty("user.name"))) {
      assertThatThrownBy(() -> Preprocessors.python(entry).files(secret).prepare())
          .isInstanceOfSatisfying(InvalidInputException.class, e -> {
            assertThat(e.field()).isEqualTo("files");
            assertThat(e.getMessage()).contains("weights.bin", "cannot be read");
          });
      return;
    }
    Path setpriv = Tools.require("setpriv", "util-linux");
    FreshJvm.Result result = FreshJvm.run(List.of(setpriv.toString(), "--bounding-set",
            "-dac_override,-dac_read_search", "--"), Map.of(), List.of(), Prepare.class,
        entry.toString(), secret.toString());

    assertThat(result.output()).contains("field=files", "weights.bin",
        "cannot be read: permission denied", "chmod a+r");
  }
}
