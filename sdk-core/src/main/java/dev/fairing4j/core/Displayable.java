package dev.fairing4j.core;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A value people look at: an aligned text table for terminals and JShell, HTML for notebooks.
 * Job statuses, jobs, metrics, plots and the tables of {@code TrainingClient} are displayable.
 *
 * <p>In a Jupyter notebook with a Java kernel (rapaio or JJava), a cell whose last expression is
 * a displayable value shows its richest form (HTML tables, a plot's PNG), because the SDK
 * registers a renderer with the kernel when the first displayable value is made;
 * {@link Notebook#display} shows one explicitly. Elsewhere nothing changes: {@code toString()}
 * and {@link #toText()} are plain text.
 */
public interface Displayable {
  /** The plain-text form, aligned for a monospace terminal. */
  String toText();

  /** The HTML form, for notebooks; cells are escaped. */
  String toHtml();

  /**
   * Every form by MIME type, richest last: {@code text/plain} and {@code text/html}; a plot adds
   * {@code image/png} (base64, as Jupyter carries images). What a notebook kernel is given.
   */
  default Map<String, String> mimeBundle() {
    Map<String, String> bundle = new LinkedHashMap<>();
    bundle.put("text/plain", toText());
    bundle.put("text/html", toHtml());
    return bundle;
  }
}
