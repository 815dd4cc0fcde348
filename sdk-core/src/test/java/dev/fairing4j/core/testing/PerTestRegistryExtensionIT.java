package dev.fairing4j.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.extension.RegisterExtension;

/** On an instance field the extension gives every test its own registry and stops it after. */
class PerTestRegistryExtensionIT {
  private static final List<Long> PIDS = new ArrayList<>();

  @RegisterExtension
  final RegistryExtension registry = RegistryExtension.plain();

  @RepeatedTest(2)
  void eachTestGetsARunningRegistryOfItsOwn() {
    assertThat(registry.isRunning()).isTrue();
    assertThat(registry.requests()).isEmpty();
    PIDS.add(registry.pid());
  }

  @AfterAll
  static void everyPerTestRegistryWasStopped() {
    assertThat(PIDS).hasSize(2).doesNotHaveDuplicates();
    assertThat(PIDS).allSatisfy(pid ->
        assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive)).isEmpty());
  }
}
