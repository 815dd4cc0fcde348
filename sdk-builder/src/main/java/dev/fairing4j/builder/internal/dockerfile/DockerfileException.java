package dev.fairing4j.builder.internal.dockerfile;

/**
 * A Dockerfile that cannot be read or translated, at a line: the builder turns it into the
 * SDK's bad-input error, naming the file and the line.
 */
public final class DockerfileException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int line;
  private final String problem;
  private final String fix;

  /**
   * @param line the 1-based line, or 0 for the file as a whole
   * @param problem what is wrong, without the line
   * @param fix what to do about it
   */
  public DockerfileException(int line, String problem, String fix) {
    super((line > 0 ? "line " + line + ": " : "") + problem + " (fix: " + fix + ")");
    this.line = line;
    this.problem = problem;
    this.fix = fix;
  }

  /** The 1-based line, or 0 for the file as a whole. */
  public int line() {
    return line;
  }

  /** What is wrong, without the line. */
  public String problem() {
    return problem;
  }

  /** What to do about it. */
  public String fix() {
    return fix;
  }
}
