package dev.fairing4j.core;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Draws {@link ProgressEvent}s for a person: on an interactive terminal one line that updates in
 * place (step, bytes pushed with rate, job phase and replica counts); in CI, notebooks and
 * redirected output, plain lines at milestones only, so logs stay readable. {@link #off()} shows
 * nothing.
 *
 * <pre>{@code
 * Fairing.pipeline()...progress(ConsoleProgress.auto()).run();
 * }</pre>
 */
public final class ConsoleProgress implements ProgressListener {
  private final PrintStream out;
  private final boolean interactive;
  private final Clock clock;
  private final Object lock = new Object();
  private String currentStep = "";
  private long transferStartNanos;
  private String lastTransfer = "";
  private int lastPercentShown = -1;
  private int drawnWidth;

  /** Time source, replaceable so rates can be tested without sleeping. */
  @FunctionalInterface
  interface Clock {
    long nanoTime();
  }

  ConsoleProgress(PrintStream out, boolean interactive, Clock clock) {
    this.out = Objects.requireNonNull(out, "out");
    this.interactive = interactive;
    this.clock = clock;
  }

  /**
   * Updating line on a terminal, plain lines otherwise: interactive when a console is attached,
   * {@code TERM} is not {@code dumb} and {@code CI} is unset.
   */
  public static ConsoleProgress auto() {
    String term = System.getenv("TERM");
    boolean interactive = System.console() != null && System.getenv("CI") == null
        && term != null && !term.equals("dumb");
    return new ConsoleProgress(System.out, interactive, System::nanoTime);
  }

  /** Plain lines at milestones on {@code out}. */
  public static ConsoleProgress plain(PrintStream out) {
    return new ConsoleProgress(out, false, System::nanoTime);
  }

  /** One updating line on {@code out}, as on a terminal. */
  public static ConsoleProgress updating(PrintStream out) {
    return new ConsoleProgress(out, true, System::nanoTime);
  }

  /** Shows nothing. */
  public static ProgressListener off() {
    return ProgressListener.NONE;
  }

  @Override
  public void onEvent(ProgressEvent event) {
    synchronized (lock) {
      if (event instanceof ProgressEvent.StepStarted started) {
        currentStep = started.step();
        transferStartNanos = clock.nanoTime();
        lastPercentShown = -1;
        status(currentStep + " ...");
      } else if (event instanceof ProgressEvent.StepFinished finished) {
        milestone(finished.step() + " done in " + format(finished.took()));
      } else if (event instanceof ProgressEvent.BytesTransferred bytes) {
        transfer(bytes);
      } else if (event instanceof ProgressEvent.PhaseChanged phase) {
        milestone(phase.job() + ": " + (phase.previous() == null ? "" : phase.previous() + " -> ")
            + phase.current() + replicas(phase.replicas()));
      } else if (event instanceof ProgressEvent.Note note) {
        milestone(note.message());
      }
    }
  }

  private void transfer(ProgressEvent.BytesTransferred bytes) {
    long now = clock.nanoTime();
    if (transferStartNanos == 0) {
      transferStartNanos = now;
    }
    long elapsed = now - transferStartNanos;
    // No rate before any time has passed: a first sample would show an absurd figure.
    String rate = elapsed <= 0 ? "" : ", " + size((long) (bytes.done() / (elapsed / 1e9))) + "/s";
    String amount = bytes.total() > 0
        ? size(bytes.done()) + " / " + size(bytes.total())
        : size(bytes.done());
    lastTransfer = bytes.what() + " " + amount;
    if (interactive) {
      status(currentStep + ": " + lastTransfer + (rate.isEmpty() ? "" : " (" + rate.substring(2) + ")"));
      return;
    }
    // Plain output: a line at each quarter, so a CI log shows progress without a flood.
    if (bytes.total() > 0) {
      int percent = (int) Math.min(100, bytes.done() * 100 / bytes.total());
      int quarter = percent / 25 * 25;
      if (quarter > lastPercentShown) {
        lastPercentShown = quarter;
        out.println(bytes.what() + ": " + amount + " (" + quarter + "%" + rate + ")");
      }
    }
  }

  private void status(String text) {
    if (!interactive) {
      out.println(text);
      return;
    }
    String padded = text.length() < drawnWidth
        ? text + " ".repeat(drawnWidth - text.length()) : text;
    out.print("\r" + padded);
    out.flush();
    drawnWidth = text.length();
  }

  private void milestone(String text) {
    if (interactive) {
      // Finish the updating line so the milestone stays on screen.
      status(text);
      out.println();
      drawnWidth = 0;
    } else {
      out.println(text);
    }
  }

  private static String replicas(Map<String, Integer> counts) {
    if (counts.isEmpty()) {
      return "";
    }
    return " (" + new TreeMap<>(counts).entrySet().stream()
        .map(e -> e.getKey() + " " + e.getValue())
        .collect(Collectors.joining(", ")) + ")";
  }

  static String size(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    double value = bytes;
    int unit = -1;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
  }

  static String format(Duration took) {
    long millis = took.toMillis();
    return millis < 1000 ? millis + " ms"
        : String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
  }

  @Override
  public String toString() {
    return "ConsoleProgress[" + (interactive ? "updating line" : "plain lines") + "]";
  }
}
