package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;

/**
 * Points the one {@code Clusters.local()} of a user-facing script or notebook at a test's own
 * state and volume directories, so a test run leaves nothing in the user's.
 */
final class LocalClusterRedirect {
  private static final String LOCAL = "Clusters.local()";

  private LocalClusterRedirect() {}

  static String apply(String source, Path state, Path volumes) {
    // Exactly one: a second cluster in the script would escape the redirect.
    assertThat(source.split(java.util.regex.Pattern.quote(LOCAL), -1)).hasSize(2);
    return source.replace(LOCAL, LOCAL + ".stateDir(java.nio.file.Path.of(\"" + state
        + "\")).volumesDir(java.nio.file.Path.of(\"" + volumes + "\"))");
  }
}
