package dev.fairing4j.core;

/**
 * The first stage of a pipeline: turns the user's training code (a script, a notebook, a git
 * repository) into a {@link BuildContext}. Implementations check their input (files exist, the
 * entry point lies inside the context, the notebook parses) and fail with an
 * {@link InvalidInputException} before anything touches the network.
 */
@FunctionalInterface
public interface Preprocessor {
  /** Reads the sources and returns what goes into the image. */
  BuildContext prepare();
}
