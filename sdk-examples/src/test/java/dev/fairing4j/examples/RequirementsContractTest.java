package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.builder.internal.preprocess.RequirementsBootstrap;
import dev.fairing4j.deployer.local.internal.python.RequirementsInstaller;
import org.junit.jupiter.api.Test;

/**
 * The image's start-up wrapper (sdk-builder) and the local cluster (sdk-deployer) share a
 * contract by name only, the modules not depending on each other: the local cluster installs a
 * job's requirements once and tells the wrapper where, so no replica runs pip again.
 */
class RequirementsContractTest {
  @Test
  void theLocalClusterNamesTheWrappersDirectoryAndStampAsTheWrapperReadsThem() {
    assertThat(RequirementsInstaller.SITE_PACKAGES_ENV)
        .isEqualTo(RequirementsBootstrap.SITE_PACKAGES_ENV);
    assertThat(RequirementsBootstrap.script("/app/requirements.txt"))
        .contains("stamp=\"$target/" + RequirementsInstaller.STAMP + "\"");
  }
}
