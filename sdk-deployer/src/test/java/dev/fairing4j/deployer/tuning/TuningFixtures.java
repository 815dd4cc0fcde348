package dev.fairing4j.deployer.tuning;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ImageBuilder;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.RegistryCredentials;
import dev.fairing4j.core.testing.KubeApiServer;
import dev.fairing4j.deployer.Fixtures;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/** What the tuning tests that render manifests share. */
final class TuningFixtures {
  private TuningFixtures() {}

  /**
   * A builder for dry runs: it plans {@link Fixtures#image()} (pinned by digest) and fails the
   * test if asked to build; pulls with {@code pull} when given.
   */
  static ImageBuilder dryRunBuilder(Optional<RegistryCredentials> pull) {
    return new ImageBuilder() {
      @Override
      public ImageRef plannedImage(BuildContext context) {
        return Fixtures.image();
      }

      @Override
      public ImageRef build(BuildContext context, ProgressListener progress) {
        throw new AssertionError("a dry run builds nothing");
      }

      @Override
      public Optional<RegistryCredentials> pullCredentials() {
        return pull;
      }
    };
  }

  /**
   * A builder that plans {@code registry.example.com/team/mnist:planned} and, asked to build,
   * counts the build in {@code builds} and gives {@link Fixtures#image()}: the tests that submit
   * to a controller check that the built image (pinned) is what they submit, and that attaching
   * builds nothing.
   */
  static ImageBuilder countingBuilder(AtomicInteger builds) {
    return new ImageBuilder() {
      @Override
      public ImageRef plannedImage(BuildContext context) {
        return new ImageRef("registry.example.com", "team/mnist", Optional.of("planned"),
            Optional.empty());
      }

      @Override
      public ImageRef build(BuildContext context, ProgressListener progress) {
        builds.incrementAndGet();
        return Fixtures.image();
      }
    };
  }

  /** Replaces the status of the object at {@code path} as its controller does. */
  static void putStatus(KubeApiServer server, String path, Map<String, Object> status) {
    Map<String, Object> object = server.request("GET", path, null);
    object.put("status", status);
    KubeApiServer.Response response = server.send("PUT", path + "/status", object);
    assertThat(response.status()).as(response.toString()).isEqualTo(200);
  }
}
