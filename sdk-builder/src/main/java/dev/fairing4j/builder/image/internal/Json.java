package dev.fairing4j.builder.image.internal;

import com.fasterxml.jackson.databind.ObjectMapper;

/** The one Jackson mapper of the image package (thread-safe once configured). */
final class Json {
  static final ObjectMapper MAPPER = new ObjectMapper();

  private Json() {}
}
