package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.InvalidInputException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Where an image is pushed must be said, never guessed: a target without a registry host would
 * mean Docker Hub, a public registry, so {@code pushTo} refuses it at once (the call itself
 * throws, so no build and no network call can follow) and says how to mean Docker Hub. A base
 * image may still be a short Docker Hub name: pulling {@code python:3.11} is what everyone means.
 */
class PushTargetTest {

  @ParameterizedTest
  @CsvSource({
      "hello,             docker.io/library/hello",
      "team/hello,        docker.io/team/hello",
      "team/hello:v1,     docker.io/team/hello:v1",
      "ml/team/hello,     docker.io/ml/team/hello",
      "' hello ',         docker.io/library/hello"})
  void aTargetWithoutARegistryHostIsRefusedWithTheExplicitDockerHubSpelling(String target,
      String dockerHub) {
    assertThatThrownBy(() -> Builders.jib("python:3.11").pushTo(target))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("pushTo");
          assertThat(e.getMessage()).contains("'" + target.trim() + "'", "no registry host",
              "Docker Hub");
          assertThat(e.fix()).contains("registry.example.com/", dockerHub);
        });
  }

  @ParameterizedTest
  @ValueSource(strings = {"docker.io/library/hello", "docker.io/team/hello",
      "docker.io/hello", "index.docker.io/team/hello", "localhost/team/hello",
      "localhost:5000/hello", "127.0.0.1:5000/team/hello", "registry.example.com/team/hello:v1"})
  void aTargetThatNamesItsRegistryIsAccepted(String target) {
    assertThat(Builders.scratch().pushTo(target).toString()).contains(" -> ");
  }

  @ParameterizedTest
  @ValueSource(strings = {"python:3.11", "pytorch/pytorch:2.3.1-cuda12.1-cudnn8-runtime",
      "docker.io/library/python:3.11"})
  void aBaseMayBeAShortDockerHubName(String base) {
    assertThat(Builders.jib(base).pushTo("registry.example.com/team/app").toString())
        .contains("docker.io/");
  }
}
