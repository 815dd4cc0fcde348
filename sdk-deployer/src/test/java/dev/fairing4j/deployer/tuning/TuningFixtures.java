package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ImageBuilder;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.RegistryCredentials;
import dev.fairing4j.deployer.Fixtures;
import java.util.Optional;

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
}
