package dev.fairing4j.builder.internal.preprocess;

/**
 * The runner a full notebook starts with in its container: {@code run_notebook.py}, shipped
 * beside the notebook under {@code .fairing4j/}. It runs papermill when the image has it, and
 * nbclient otherwise (papermill cannot be installed everywhere; nbclient is what it drives).
 */
public final class NotebookRunner {
  /** The runner's file name under {@code <pathPrefix>/.fairing4j/}. */
  public static final String FILE_NAME = "run_notebook.py";

  private NotebookRunner() {}

  /** The runner's Python source. */
  public static String script() {
    return BundledScript.text(FILE_NAME);
  }
}
