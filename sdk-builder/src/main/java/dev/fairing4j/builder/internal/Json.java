package dev.fairing4j.builder.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * The builder's one Jackson configuration: Jackson's defaults, which image manifests, registry
 * tokens, notebooks and Docker's auth files need. Thread-safe and never reconfigured: a caller
 * that needs another behaviour derives an {@link ObjectWriter} or reader from it.
 */
public final class Json {
  /** The mapper; do not configure it (it is shared). */
  public static final ObjectMapper MAPPER = new ObjectMapper();
  /** Writes maps with their keys sorted, so the same value always gives the same bytes. */
  public static final ObjectWriter SORTED = MAPPER.writer(
      SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);

  private Json() {}
}
