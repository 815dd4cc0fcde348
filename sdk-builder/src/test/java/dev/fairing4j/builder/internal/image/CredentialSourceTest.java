package dev.fairing4j.builder.internal.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.Secret;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CredentialSourceTest {
  @TempDir Path dockerConfig;

  private Map<String, String> environmentWithDockerConfig() throws Exception {
    String auth = Base64.getEncoder().encodeToString("carol:from-config"
        .getBytes(StandardCharsets.UTF_8));
    Files.writeString(dockerConfig.resolve("config.json"),
        "{\"auths\": {\"registry.example.com:5000\": {\"auth\": \"" + auth + "\"}}}");
    return Map.of("DOCKER_CONFIG", dockerConfig.toString(), "REG_USER", "dave",
        "REG_PASSWORD", "from-env");
  }

  @Test
  void explicitBeatsEnvironmentBeatsDockerConfig() throws Exception {
    Map<String, String> environment = environmentWithDockerConfig();
    String image = "registry.example.com:5000/team/app:1";
    CredentialSource docker = CredentialSource.NONE.withDockerConfig();
    CredentialSource env = docker.withEnvironment("REG_USER", "REG_PASSWORD");
    CredentialSource explicit = env.withExplicit(new RegistryCredential("erin", Secret.of("x")));

    assertThat(docker.resolve(image, environment)).get()
        .satisfies(c -> assertThat(c.username()).isEqualTo("carol"))
        .satisfies(c -> assertThat(c.password().reveal()).isEqualTo("from-config"));
    assertThat(env.resolve(image, environment)).get()
        .satisfies(c -> assertThat(c.password().reveal()).isEqualTo("from-env"));
    assertThat(explicit.resolve(image, environment)).get()
        .satisfies(c -> assertThat(c.username()).isEqualTo("erin"));
    assertThat(docker.resolve("other.example.com/x:1", environment)).isEmpty();
    assertThat(CredentialSource.NONE.resolve(image, environment)).isEmpty();
  }

  @Test
  void aMissingVariableIsInvalidInputAndNothingLeaks() {
    CredentialSource env = CredentialSource.NONE.withEnvironment("REG_USER", "REG_PASSWORD");

    assertThatThrownBy(() -> env.resolve("r.example.com/x:1", Map.of("REG_USER", "dave")))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("credentialsFromEnvironment");
          assertThat(e.getMessage()).contains("REG_PASSWORD");
        });
    assertThat(new RegistryCredential("dave", Secret.of("t0p")).toString())
        .isEqualTo("dave:****");
    assertThat(env.withExplicit(new RegistryCredential("dave", Secret.of("t0p"))).toString())
        .doesNotContain("t0p");
  }
}
