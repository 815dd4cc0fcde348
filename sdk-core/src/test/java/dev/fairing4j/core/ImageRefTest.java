package dev.fairing4j.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ImageRefTest {
  private static final String DIGEST = "sha256:" + "ab".repeat(32);

  @ParameterizedTest
  @CsvSource(nullValues = "-", value = {
      "mnist, docker.io, library/mnist, -, -",
      "pytorch/pytorch:2.3.1-cuda12.1-cudnn8-runtime, docker.io, pytorch/pytorch, 2.3.1-cuda12.1-cudnn8-runtime, -",
      "registry.example.com/team/mnist, registry.example.com, team/mnist, -, -",
      "127.0.0.1:5000/mnist:v1, 127.0.0.1:5000, mnist, v1, -",
      "localhost/a/b/c:t, localhost, a/b/c, t, -",
      "[::1]:5000/x, [::1]:5000, x, -, -",
  })
  void parsesAsDockerDoes(String text, String registry, String repository, String tag,
      String digest) {
    ImageRef ref = ImageRef.parse(text);
    assertThat(ref.registry()).isEqualTo(registry);
    assertThat(ref.repository()).isEqualTo(repository);
    assertThat(ref.tag()).isEqualTo(Optional.ofNullable(tag));
    assertThat(ref.digest()).isEqualTo(Optional.ofNullable(digest));
  }

  @Test
  void referencePinsTheDigestWhenKnown() {
    ImageRef ref = ImageRef.parse("registry.example.com/team/mnist:1f2e3d4c5b6a7980");
    assertThat(ref.reference()).isEqualTo("registry.example.com/team/mnist:1f2e3d4c5b6a7980");

    ImageRef pinned = ref.withDigest(DIGEST);
    assertThat(pinned.reference()).isEqualTo("registry.example.com/team/mnist@" + DIGEST);
    assertThat(pinned.toString()).contains(":1f2e3d4c5b6a7980@" + DIGEST);
    assertThat(ImageRef.parse("registry.example.com/team/mnist@" + DIGEST)).isEqualTo(
        new ImageRef("registry.example.com", "team/mnist", Optional.empty(), Optional.of(DIGEST)));
    assertThat(ImageRef.parse("x.io/m").reference()).isEqualTo("x.io/m:latest");
  }

  @ParameterizedTest
  @ValueSource(strings = {"Registry.example.com/Team/Mnist", "x.io/team/", "x.io/team:", "x.io/a@sha256:12",
      "x.io/a:-bad", "x.io/a b", "x.io/a@", "x.io/a__-b", ":tag"})
  void malformedReferencesNameTheImageFieldAndTheFormat(String text) {
    assertThatThrownBy(() -> ImageRef.parse(text))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("image")
        .hasMessageContaining("repository[:tag]");
  }

  @ParameterizedTest
  @CsvSource({"127.0.0.1:5000/x, true", "localhost:5000/x, true", "localhost/x, true",
      "[::1]:5000/x, true", "registry.example.com/x, false", "10.0.0.1:5000/x, false",
      "127.example.com/x, false", "127.1.2.3/x, true"})
  void loopbackIsRecognised(String text, boolean loopback) {
    assertThat(ImageRef.parse(text).isLoopback()).isEqualTo(loopback);
  }
}
