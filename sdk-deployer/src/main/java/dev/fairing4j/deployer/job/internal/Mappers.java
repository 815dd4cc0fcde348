package dev.fairing4j.deployer.job.internal;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;

/**
 * The deployer's one JSON configuration (API bodies, local job records, registry credentials);
 * its one YAML configuration is {@link Yaml#MAPPER}, apart so that a local job's supervisor
 * process, which reads JSON only, loads no YAML classes. The mapper is thread-safe and shared:
 * never configure it; a caller that needs another behaviour derives a writer or reader, as
 * {@link #INDENTED} is derived.
 */
public final class Mappers {
  /** JSON with Jackson's defaults. */
  public static final ObjectMapper JSON = new ObjectMapper();
  /** JSON for files people read (a local job's record): indented. */
  public static final ObjectWriter INDENTED = JSON.writerWithDefaultPrettyPrinter();

  private Mappers() {}
}
