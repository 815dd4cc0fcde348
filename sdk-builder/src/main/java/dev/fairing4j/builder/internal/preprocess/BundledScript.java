package dev.fairing4j.builder.internal.preprocess;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * A Python file the SDK ships in its jar beside this class and writes into images: the notebook
 * runner, the model server.
 */
final class BundledScript {
  private BundledScript() {}

  /** The text of {@code fileName}; a jar without it is a broken build of the SDK. */
  static String text(String fileName) {
    try (InputStream in = BundledScript.class.getResourceAsStream(fileName)) {
      if (in == null) {
        throw new IllegalStateException(fileName + " is missing from the SDK's jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
