package dev.fairing4j.deployer.job.internal;

import dev.fairing4j.core.internal.Sha256;
import java.security.SecureRandom;

/** Generated name parts: unique-name suffixes and run ids. */
public final class Names {
  /** Length of {@code -<suffix>} that {@code uniqueName()} appends. */
  public static final int UNIQUE_SUFFIX_LENGTH = 6;

  // Kubernetes' own generateName alphabet: no vowels (no accidental words), no look-alikes.
  private static final String ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
  private static final SecureRandom RANDOM = new SecureRandom();

  private Names() {}

  /** {@code name-xxxxx} with a fresh random suffix. */
  public static String unique(String name) {
    StringBuilder result = new StringBuilder(name).append('-');
    for (int i = 0; i < UNIQUE_SUFFIX_LENGTH - 1; i++) {
      result.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
    }
    return result.toString();
  }

  /**
   * A 12-hex-digit run id from the namespace, job name and the build context's digest:
   * deterministic, so a dry run shows the id the run will carry.
   */
  public static String runId(String namespace, String jobName, String contextDigest) {
    return Sha256.hex(namespace + "/" + jobName + "@" + contextDigest).substring(0, 12);
  }
}
