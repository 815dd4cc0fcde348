package dev.fairing4j.core.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The SDK's one SHA-256 helper: content digests, run ids, cache keys and fingerprints all hash
 * the same way, and the impossible {@link NoSuchAlgorithmException} (every JVM has SHA-256) is
 * handled once instead of at every call.
 */
public final class Sha256 {
  private Sha256() {}

  /** A fresh digest to feed incrementally. */
  public static MessageDigest newDigest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  /** Lower-case hex of the digest of {@code content}. */
  public static String hex(byte[] content) {
    return HexFormat.of().formatHex(newDigest().digest(content));
  }

  /** Lower-case hex of the digest of {@code text} in UTF-8. */
  public static String hex(String text) {
    return hex(text.getBytes(StandardCharsets.UTF_8));
  }

  /** Lower-case hex of what {@code digest} has been fed. */
  public static String hex(MessageDigest digest) {
    return HexFormat.of().formatHex(digest.digest());
  }

  /**
   * Lower-case hex over {@code parts}, each prefixed by its length, so that no two different
   * lists hash alike ({@code ["ab", "c"]} and {@code ["a", "bc"]} differ).
   */
  public static String ofParts(List<String> parts) {
    MessageDigest md = newDigest();
    updateParts(md, parts);
    return hex(md);
  }

  /** Feeds {@code parts} to {@code digest} as {@link #ofParts(List)} does. */
  public static void updateParts(MessageDigest digest, List<String> parts) {
    for (String part : parts) {
      byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
      digest.update((bytes.length + ";").getBytes(StandardCharsets.US_ASCII));
      digest.update(bytes);
    }
  }
}
