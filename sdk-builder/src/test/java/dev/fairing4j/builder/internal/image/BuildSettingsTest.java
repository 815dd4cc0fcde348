package dev.fairing4j.builder.internal.image;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.Secret;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BuildSettingsTest {
  private static BuildSettings settings(String base, String target, boolean optIn) {
    BuildSettings plain = BuildSettings.on(base == null ? new BaseImage.Scratch()
        : new BaseImage.FromRegistry(ImageRef.parse(base)));
    return new BuildSettings(plain.base(), Optional.of(ImageRef.parse(target)), Optional.empty(),
        false, plain.format(), plain.tags(), plain.targetCredentials(), Optional.empty(), optIn,
        Optional.empty(), Optional.empty(), plain.trustedCertificates(), List.of(), List.of());
  }

  @Test
  void plainHttpOnlyWhenEveryRegistryIsLocalOrOnOptIn() {
    assertThat(settings("127.0.0.1:5000/base:1", "127.0.0.1:5000/app", false)
        .insecureAllowed()).isTrue();
    assertThat(settings("localhost:5000/base:1", "127.0.0.1:5001/app", false)
        .insecureAllowed()).isTrue();
    assertThat(settings(null, "127.0.0.1:5000/app", false).insecureAllowed()).isTrue();
    // Jib's switch would also relax the remote base registry: not without the user's word.
    assertThat(settings("python:3.11", "127.0.0.1:5000/app", false).insecureAllowed()).isFalse();
    assertThat(settings("127.0.0.1:5000/base:1", "registry.example.com/app", false)
        .insecureAllowed()).isFalse();
    assertThat(settings("python:3.11", "registry.example.com/app", true).insecureAllowed())
        .isTrue();
  }

  @Test
  void targetCredentialsCoverABaseInTheSameRegistryOnly() {
    RegistryCredential alice = new RegistryCredential("alice", Secret.of("pw"));
    BuildSettings same = settings("r.example.com/base:1", "r.example.com/app", false);
    BuildSettings sameWithCreds = new BuildSettings(same.base(), same.repository(), same.tar(),
        false,
        same.format(), same.tags(), CredentialSource.NONE.withExplicit(alice), Optional.empty(),
        false, Optional.empty(), Optional.empty(), same.trustedCertificates(), List.of(),
        List.of());
    BuildSettings other = new BuildSettings(new BaseImage.FromRegistry(
        ImageRef.parse("python:3.11")), same.repository(), same.tar(), false, same.format(),
        same.tags(), CredentialSource.NONE.withExplicit(alice), Optional.empty(), false,
        Optional.empty(), Optional.empty(), same.trustedCertificates(), List.of(), List.of());

    assertThat(sameWithCreds.effectiveBaseCredentials().explicit()).contains(alice);
    assertThat(other.effectiveBaseCredentials()).isEqualTo(CredentialSource.NONE);
  }
}
