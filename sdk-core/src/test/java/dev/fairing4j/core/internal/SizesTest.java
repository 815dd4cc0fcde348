package dev.fairing4j.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SizesTest {
  @Test
  void sizesAreHumanReadable() {
    assertThat(Sizes.human(512)).isEqualTo("512 B");
    assertThat(Sizes.human(1536)).isEqualTo("1.5 KiB");
    assertThat(Sizes.human(3L * 1024 * 1024 * 1024)).isEqualTo("3.0 GiB");
  }
}
