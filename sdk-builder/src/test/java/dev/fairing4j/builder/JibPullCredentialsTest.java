package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.RegistryCredentials;
import dev.fairing4j.core.Secret;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** What a builder hands the deployer for an image-pull Secret; nothing is built or contacted. */
class JibPullCredentialsTest {
  private static final String PASSWORD = "s3cr3t-pull-password";

  @Test
  void explicitCredentialsAreHandedOutForTheTargetRegistryWithItsPort() {
    JibImageBuilder builder = Builders.jib("python:3.12-slim")
        .pushTo("registry.example.com:5443/team/mnist")
        .credentials("alice", Secret.of(PASSWORD));

    RegistryCredentials credentials = builder.pullCredentials().orElseThrow();

    assertThat(credentials.registry()).isEqualTo("registry.example.com:5443");
    assertThat(credentials.username()).isEqualTo("alice");
    assertThat(credentials.password().reveal()).isEqualTo(PASSWORD);
    assertThat(credentials.toString()).isEqualTo("alice@registry.example.com:5443")
        .doesNotContain(PASSWORD);
    assertThat(builder.toString()).doesNotContain(PASSWORD);
  }

  @Test
  void environmentCredentialsAreReadWhenAskedFor() {
    // HOME and PATH are set in every test JVM; they stand in for REGISTRY_USER/REGISTRY_PASSWORD.
    JibImageBuilder builder = Builders.jib("python:3.12-slim")
        .pushTo("registry.example.com/team/mnist")
        .credentialsFromEnvironment("HOME", "PATH");

    RegistryCredentials credentials = builder.pullCredentials().orElseThrow();

    assertThat(credentials.registry()).isEqualTo("registry.example.com");
    assertThat(credentials.username()).isEqualTo(System.getenv("HOME"));
    assertThat(credentials.password().reveal()).isEqualTo(System.getenv("PATH"));
  }

  @Test
  void aMissingEnvironmentVariableNamesTheFieldAndTheFix() {
    JibImageBuilder builder = Builders.jib("python:3.12-slim")
        .pushTo("registry.example.com/team/mnist")
        .credentialsFromEnvironment("FAIRING4J_TEST_UNSET_USER", "FAIRING4J_TEST_UNSET_PW");

    assertThatThrownBy(builder::pullCredentials)
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("credentialsFromEnvironment");
          assertThat(e.getMessage()).contains("FAIRING4J_TEST_UNSET_USER");
          assertThat(e.fix()).contains("export");
        });
  }

  @Test
  void nothingIsHandedOutWithoutExplicitCredentials() {
    JibImageBuilder anonymous = Builders.jib("python:3.12-slim")
        .pushTo("registry.example.com/team/mnist");
    assertThat(anonymous.pullCredentials()).isEmpty();
    // A credential helper's token is the user's own login: never copied into a cluster Secret.
    assertThat(anonymous.dockerConfig().pullCredentials()).isEmpty();
    // Base credentials are for pulling the base at build time, not for the cluster.
    assertThat(anonymous.baseCredentials("bob", Secret.of(PASSWORD)).pullCredentials())
        .isEmpty();
  }

  @Test
  void nothingIsHandedOutWhenNothingIsPushed() {
    JibImageBuilder toTar = Builders.jib("python:3.12-slim")
        .pushTo("registry.example.com/team/mnist")
        .credentials("alice", Secret.of(PASSWORD))
        .toTar(Path.of("image.tar"));
    assertThat(toTar.pullCredentials()).isEmpty();
    assertThat(Builders.jib("python:3.12-slim").credentials("alice", Secret.of(PASSWORD))
        .pullCredentials()).isEmpty();
  }
}
