package dev.fairing4j.deployer.local.internal.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.FairingException;
import org.junit.jupiter.api.Test;

/** A missing tool is reported with the package that provides it. */
class HostToolsTest {
  @Test
  void aMissingToolNamesItsPackageAndTheAlternative() {
    assertThatThrownBy(() -> HostTools.require("bwrap-that-is-not-there", "bubblewrap",
        "LocalCluster.withoutSandbox()"))
        .isInstanceOfSatisfying(FairingException.class, e -> {
          assertThat(e.getMessage()).contains("'bwrap-that-is-not-there' is not installed");
          assertThat(e.hint()).contains("apt-get install bubblewrap, or"
              + " LocalCluster.withoutSandbox()");
        });
  }

  @Test
  void findsInstalledTools() {
    assertThat(HostTools.find("sh")).isPresent();
  }
}
