package dev.fairing4j.core;

/**
 * The image layer a context file goes into, in build order. Dependencies change rarely and code
 * often, so keeping them apart lets a one-line code change re-upload only the small code layer.
 */
public enum Layer {
  /** {@code requirements.txt} and anything else installed before the code runs. */
  REQUIREMENTS,
  /** The training code and its data files. */
  CODE
}
