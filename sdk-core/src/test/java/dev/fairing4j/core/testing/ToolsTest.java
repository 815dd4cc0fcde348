package dev.fairing4j.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

class ToolsTest {

  @Test
  void requireFindsAnInstalledBinaryAsAnExecutableAbsolutePath() {
    // sh is in every Debian base system
    assertThat(Tools.require("sh", "dash"))
        .isAbsolute()
        .satisfies(path -> assertThat(Files.isExecutable(path)).isTrue());
  }

  @Test
  void requireFailsWithTheAptGetHintWhenTheBinaryIsMissing() {
    assertThatThrownBy(() -> Tools.require("fairing4j-no-such-tool", "fairing4j-tools"))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessageContaining("fairing4j-no-such-tool")
        .hasMessageContaining("install it: apt-get install fairing4j-tools");
  }

  @Test
  void tagConstantsMatchTheTagsThePomExcludesByDefault() {
    assertThat(new String[] {Tags.GPU, Tags.DOCKER, Tags.TENSORFLOW, Tags.CLUSTER, Tags.PAPERMILL})
        .containsExactly("gpu", "docker", "tensorflow", "cluster", "papermill");
  }
}
