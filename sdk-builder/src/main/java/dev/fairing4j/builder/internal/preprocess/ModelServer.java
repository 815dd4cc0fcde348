package dev.fairing4j.builder.internal.preprocess;

/**
 * The model server a predictor's image runs: {@code fairing4j_model_server.py}, shipped under
 * {@code <pathPrefix>/.fairing4j/}. Standard library only; it loads the user's predictor once and
 * answers KServe's V1 protocol and the Open Inference Protocol's REST API (its docstring has the
 * paths and the rules); a predictor written for KServe's SDK runs beside {@value
 * #KSERVE_FILE_NAME} where the image has no {@code kserve} package.
 */
public final class ModelServer {
  /** The server's file name. */
  public static final String FILE_NAME = "fairing4j_model_server.py";
  /** Where it goes below the path prefix. */
  public static final String RELATIVE_PATH = ".fairing4j/" + FILE_NAME;
  /**
   * The stand-in for KServe's Python SDK ({@code kserve.Model}, {@code kserve.ModelServer}, the
   * V2 tensor types) that serves a predictor written for KServe where the image has no
   * {@code kserve} package; it goes beside the server.
   */
  public static final String KSERVE_FILE_NAME = "fairing4j_kserve.py";
  /** Where the stand-in goes below the path prefix. */
  public static final String KSERVE_RELATIVE_PATH = ".fairing4j/" + KSERVE_FILE_NAME;
  /** The port it listens on unless told otherwise: KServe's for custom containers. */
  public static final int DEFAULT_PORT = 8080;

  private ModelServer() {}

  /** The server's Python source. */
  public static String script() {
    return BundledScript.text(FILE_NAME);
  }

  /** The {@code kserve} stand-in's Python source. */
  public static String kserveScript() {
    return BundledScript.text(KSERVE_FILE_NAME);
  }
}
