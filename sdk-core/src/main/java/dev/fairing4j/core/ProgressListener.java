package dev.fairing4j.core;

/**
 * Receives {@link ProgressEvent}s. Called on the thread doing the work, so implementations return
 * quickly and never throw; a listener that throws is logged once and otherwise ignored.
 */
@FunctionalInterface
public interface ProgressListener {
  /** Ignores every event. */
  ProgressListener NONE = event -> {};

  /** Handles one event. */
  void onEvent(ProgressEvent event);
}
