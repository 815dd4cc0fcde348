package dev.fairing4j.builder.internal.image;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.cloud.tools.jib.api.InsecureRegistryException;
import dev.fairing4j.builder.ImageBuildException;
import dev.fairing4j.core.FairingException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URL;
import java.util.List;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class JibFailuresTest {
  /** What Jib's JSON templates look like to Jackson: a class without an artifactType field. */
  static final class Descriptor {
    public String mediaType;
    public String digest;
  }

  @Test
  void jacksonsUnknownArtifactTypeBecomesThePinningAdvice() {
    Throwable jackson = catchThrowable(() -> new ObjectMapper()
        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .readValue("{\"mediaType\":\"m\",\"digest\":\"d\",\"artifactType\":\"a\"}",
            Descriptor.class));

    FairingException mapped = JibFailures.map(new ExecutionException(new IOException(jackson)),
        "127.0.0.1:5000", "registry.example.com", "registry.example.com/base:1", List.of());

    assertThat(mapped.getMessage()).contains("artifactType", "registry.example.com/base:1");
    assertThat(mapped.hint()).get().asString()
        .contains("registry.example.com/base@sha256:<linux/amd64 manifest digest>", "skopeo copy");
  }

  @Test
  void connectionFailuresNameHostAndPortAndMaskSecrets() {
    FairingException mapped = JibFailures.map(new ConnectException(
            "Connect to 10.1.2.3:5000 [/10.1.2.3] failed: refused (user bob, password hunter2)"),
        "registry.example.com", "", "scratch", List.of("hunter2"));

    assertThat(mapped).isInstanceOf(ImageBuildException.class);
    assertThat(mapped.subject()).contains("10.1.2.3:5000");
    assertThat(mapped.getMessage()).contains("10.1.2.3:5000", "unreachable")
        .doesNotContain("hunter2");
    assertThat(mapped.getCause()).isNull();
  }

  @Test
  void aRegistryWithoutVerifiedTlsGetsTheTrustHint() throws Exception {
    FairingException mapped = JibFailures.map(new InsecureRegistryException(
            new URL("https://registry.example.com:5000/v2/"), new IOException("PKIX")),
        "registry.example.com:5000", "", "scratch", List.of());

    assertThat(mapped.hint()).get().asString().contains("trustedCertificates", "allowInsecure()");
  }

  @Test
  void manifestUnknownForTheBaseIsA404() {
    FairingException mapped = JibFailures.map(new IOException(
            "Tried to pull image manifest for r.example.com/base:1 but failed because: manifest"
                + " unknown"), "r.example.com", "r.example.com", "r.example.com/base:1",
        List.of());

    assertThat(mapped.httpStatus()).contains(404);
    assertThat(mapped.getMessage()).contains("r.example.com/base:1", "not found");
  }

  @Test
  void anythingElseKeepsItsCauseAndNamesTheTarget() {
    IllegalStateException odd = new IllegalStateException("disk on fire");

    FairingException mapped = JibFailures.map(odd, "r.example.com", "", "scratch", List.of());

    assertThat(mapped.subject()).contains("r.example.com");
    assertThat(mapped.getMessage()).contains("disk on fire");
    assertThat(mapped.getCause()).isSameAs(odd);
  }
}
