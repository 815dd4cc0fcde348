package dev.fairing4j.builder.preprocess.internal;

/**
 * The model server a predictor's image runs: {@code fairing4j_model_server.py}, shipped under
 * {@code <pathPrefix>/.fairing4j/}. Standard library only; it loads the user's predictor once and
 * answers KServe's V1 and V2 REST protocols (its docstring has the paths and the rules).
 */
public final class ModelServer {
  /** The server's file name. */
  public static final String FILE_NAME = "fairing4j_model_server.py";
  /** Where it goes below the path prefix. */
  public static final String RELATIVE_PATH = ".fairing4j/" + FILE_NAME;
  /** The port it listens on unless told otherwise: KServe's for custom containers. */
  public static final int DEFAULT_PORT = 8080;

  private ModelServer() {}

  /** The server's Python source. */
  public static String script() {
    return BundledScript.text(FILE_NAME);
  }
}
