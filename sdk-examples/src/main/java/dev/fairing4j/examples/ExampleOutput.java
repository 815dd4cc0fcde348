package dev.fairing4j.examples;

import java.io.PrintStream;
import java.util.Objects;

/**
 * Where an example writes: its report and the job's log lines to {@code out}, problems to
 * {@code err}. A value so tests can capture both.
 *
 * @param out the report and log lines
 * @param err errors and warnings
 */
public record ExampleOutput(PrintStream out, PrintStream err) {
  /** Checks for nulls. */
  public ExampleOutput {
    Objects.requireNonNull(out, "out");
    Objects.requireNonNull(err, "err");
  }

  /** {@code System.out} and {@code System.err}. */
  public static ExampleOutput console() {
    return new ExampleOutput(System.out, System.err);
  }

  /** Prints a line to {@code out}. */
  public void println(String line) {
    out.println(line);
  }

  /** Prints a line to {@code err}. */
  public void error(String line) {
    err.println(line);
  }
}
