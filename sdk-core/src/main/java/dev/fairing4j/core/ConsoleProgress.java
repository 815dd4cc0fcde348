package dev.fairing4j.core;

import dev.fairing4j.core.internal.KernelBridge;
import dev.fairing4j.core.internal.Sizes;
import dev.fairing4j.core.internal.TextTable;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Draws {@link ProgressEvent}s for a person: on an interactive terminal one line that updates in
 * place (step, bytes pushed with rate, job phase and replica counts, training epoch, percent, time
 * left and metrics); in a Jupyter notebook one display that updates in place (a progress bar and
 * the last milestones); in CI and redirected output, plain lines at milestones only, so logs stay
 * readable. {@link #off()} shows nothing.
 *
 * <pre>{@code
 * Fairing.pipeline()...progress(ConsoleProgress.auto()).run();
 * }</pre>
 * Training progress comes from the job's log lines while they are followed
 * ({@code job.logs().follow(..)}), so the display moves during {@code waitForCompletion}.
 */
public final class ConsoleProgress implements ProgressListener {
  /** How the events are drawn. */
  enum Mode {
    PLAIN, UPDATING, NOTEBOOK
  }

  private static final long NOTEBOOK_UPDATE_NANOS = 250_000_000L;
  private static final int NOTEBOOK_MILESTONES = 6;
  private static final int BAR = 24;

  private final PrintStream out;
  private final Mode mode;
  private final Clock clock;
  private final Optional<KernelBridge.Kernel> kernel;
  private final Object lock = new Object();
  private String currentStep = "";
  private long transferStartNanos;
  private String lastTransfer = "";
  private int lastPercentShown = -1;
  private int drawnWidth;
  private String drawnText = "";
  // training: per job, the latest event of each replica
  private final Map<String, Map<String, ProgressEvent.TrainingProgress>> training =
      new LinkedHashMap<>();
  private final Map<String, Integer> trainingShown = new LinkedHashMap<>();
  private final java.util.Set<String> finished = new java.util.HashSet<>();
  // notebook: one display per pipeline run, updated in place
  private String displayId;
  private boolean runSubmitted;
  private String headline = "";
  private String trainingLine = "";
  private Optional<Double> trainingPercent = Optional.empty();
  private final Deque<String> milestones = new ArrayDeque<>();
  private long lastUpdateNanos;

  /** Time source, replaceable so rates can be tested without sleeping. */
  @FunctionalInterface
  interface Clock {
    long nanoTime();
  }

  ConsoleProgress(PrintStream out, boolean interactive, Clock clock) {
    this(out, interactive ? Mode.UPDATING : Mode.PLAIN, clock, Optional.empty());
  }

  ConsoleProgress(PrintStream out, Mode mode, Clock clock, Optional<KernelBridge.Kernel> kernel) {
    this.out = Objects.requireNonNull(out, "out");
    this.mode = mode;
    this.clock = clock;
    this.kernel = kernel;
  }

  /**
   * The right display for where this runs: a notebook display updated in place in a Jupyter
   * kernel (rapaio, JJava); an updating line on a terminal (a console is attached, {@code TERM}
   * is not {@code dumb} and {@code CI} is unset); plain lines otherwise.
   */
  public static ConsoleProgress auto() {
    Optional<KernelBridge.Kernel> kernel = KernelBridge.current();
    if (kernel.isPresent()) {
      return new ConsoleProgress(System.out, Mode.NOTEBOOK, System::nanoTime, kernel);
    }
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
        if (mode == Mode.NOTEBOOK && runSubmitted) {
          // A new pipeline run: a display of its own, in the cell that started it.
          newDisplay();
        }
        currentStep = started.step();
        transferStartNanos = clock.nanoTime();
        lastPercentShown = -1;
        status(currentStep + " ...");
      } else if (event instanceof ProgressEvent.StepFinished finished) {
        if (finished.step().startsWith("submit ")) {
          runSubmitted = true;
        }
        milestone(finished.step() + " done in " + format(finished.took()));
      } else if (event instanceof ProgressEvent.BytesTransferred bytes) {
        transfer(bytes);
      } else if (event instanceof ProgressEvent.PhaseChanged phase) {
        if (phase.current() == JobPhase.SUCCEEDED && training.containsKey(phase.job())) {
          // The last progress line came before the end of the last epoch: the job is done.
          finished.add(phase.job());
          if (mode == Mode.NOTEBOOK) {
            trainingLine = phase.job() + ": " + describe(phase.job(), null);
            trainingPercent = Optional.of(100.0);
          }
        }
        milestone(phase.job() + ": " + (phase.previous() == null ? "" : phase.previous() + " -> ")
            + phase.current() + replicas(phase.replicas()));
      } else if (event instanceof ProgressEvent.TrainingProgress progress) {
        training(progress);
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
    String rate = elapsed <= 0 ? ""
        : ", " + Sizes.human((long) (bytes.done() / (elapsed / 1e9))) + "/s";
    String amount = bytes.total() > 0
        ? Sizes.human(bytes.done()) + " / " + Sizes.human(bytes.total())
        : Sizes.human(bytes.done());
    lastTransfer = bytes.what() + " " + amount;
    if (mode != Mode.PLAIN) {
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

  private void training(ProgressEvent.TrainingProgress progress) {
    Map<String, ProgressEvent.TrainingProgress> replicas = training.computeIfAbsent(
        progress.job(), j -> new TreeMap<>(JobMetrics::compareReplicas));
    replicas.put(progress.replica(), progress);
    ProgressEvent.TrainingProgress slowest = slowest(replicas);
    String line = progress.job() + ": " + describe(progress.job(), slowest);
    if (mode == Mode.PLAIN) {
      if (slowest == null) {
        return;
      }
      // A line at each quarter of each epoch (or of the run, when the epochs are known).
      int quarter = (int) (slowest.percent().get() / 25) * 25;
      int mark = slowest.epochs().isPresent() ? quarter
          : slowest.epoch().orElse(0) * 1000 + quarter;
      Integer shown = trainingShown.get(progress.job());
      if (shown == null || mark > shown) {
        trainingShown.put(progress.job(), mark);
        out.println(line);
      }
      return;
    }
    if (mode == Mode.NOTEBOOK) {
      trainingLine = line;
      trainingPercent = slowest == null ? Optional.empty() : slowest.percent();
      redraw(false);
      return;
    }
    status(line);
  }

  // The slowest replica says how far the job is: it ends when the last one does.
  private static ProgressEvent.TrainingProgress slowest(
      Map<String, ProgressEvent.TrainingProgress> replicas) {
    ProgressEvent.TrainingProgress slowest = null;
    for (ProgressEvent.TrainingProgress candidate : replicas.values()) {
      if (candidate.percent().isPresent() && (slowest == null || position(candidate)
          < position(slowest))) {
        slowest = candidate;
      }
    }
    return slowest;
  }

  private static double position(ProgressEvent.TrainingProgress progress) {
    return progress.epochs().isPresent() ? progress.percent().orElse(0.0)
        : progress.epoch().orElse(0) * 1000.0 + progress.percent().orElse(0.0);
  }

  // epoch, percent and time left of the slowest replica (100% once the job succeeded), then the
  // latest metrics, the lead replica's first.
  private String describe(String job, ProgressEvent.TrainingProgress slowest) {
    Map<String, ProgressEvent.TrainingProgress> replicas = training.getOrDefault(job, Map.of());
    ProgressEvent.TrainingProgress shown = slowest != null ? slowest : slowest(replicas);
    boolean done = finished.contains(job);
    StringBuilder text = new StringBuilder();
    if (shown != null) {
      shown.epoch().ifPresent(e -> text.append("epoch ").append(e)
          .append(shown.epochs().map(n -> "/" + n).orElse("")).append(' '));
      text.append(String.format(Locale.ROOT, "%.0f%%", done ? 100.0
          : shown.percent().orElse(0.0)));
      if (!done) {
        shown.eta().ifPresent(eta -> text.append(" ETA ").append(eta(eta)));
      }
    }
    Map<String, Double> metrics = new LinkedHashMap<>();
    replicas.values().forEach(r -> r.metrics().forEach(metrics::putIfAbsent));
    metrics.forEach((name, value) -> text.append(text.length() == 0 ? "" : " ")
        .append(name).append('=').append(JobMetrics.format(value)));
    return text.toString();
  }

  private void status(String text) {
    if (mode == Mode.PLAIN) {
      out.println(text);
      return;
    }
    if (mode == Mode.NOTEBOOK) {
      headline = text;
      redraw(false);
      return;
    }
    String padded = text.length() < drawnWidth
        ? text + " ".repeat(drawnWidth - text.length()) : text;
    out.print("\r" + padded);
    out.flush();
    drawnWidth = text.length();
    drawnText = text;
  }

  /**
   * Prints a line of the caller's (a log line: {@code job.logs().follow(progress::println)})
   * without breaking the display: on a terminal the updating line is cleared first and drawn
   * again below the printed line, so the two never run together
   * ({@code ... ETA 2 s loss=2.1873[master-0] Train Epoch: 1 ...}); elsewhere it is a plain
   * {@code println} on the same stream.
   */
  public void println(String line) {
    synchronized (lock) {
      if (mode == Mode.UPDATING && drawnWidth > 0) {
        out.print("\r" + " ".repeat(drawnWidth) + "\r");
        out.println(line);
        out.print(drawnText);
        out.flush();
        return;
      }
      out.println(line);
      out.flush();
    }
  }

  private void milestone(String text) {
    if (mode == Mode.NOTEBOOK) {
      headline = text;
      milestones.addLast(text);
      while (milestones.size() > NOTEBOOK_MILESTONES) {
        milestones.removeFirst();
      }
      redraw(true);
    } else if (mode == Mode.UPDATING) {
      // Finish the updating line so the milestone stays on screen.
      status(text);
      out.println();
      drawnWidth = 0;
      drawnText = "";
    } else {
      out.println(text);
    }
  }

  private void newDisplay() {
    displayId = null;
    runSubmitted = false;
    headline = "";
    trainingLine = "";
    trainingPercent = Optional.empty();
    milestones.clear();
    training.clear();
    finished.clear();
  }

  // Milestones always show; a burst of training lines is thinned to a few redraws a second.
  private void redraw(boolean milestone) {
    long now = clock.nanoTime();
    if (!milestone && displayId != null && now - lastUpdateNanos < NOTEBOOK_UPDATE_NANOS) {
      return; // the next redraw shows it
    }
    View view = new View(headline, trainingLine, trainingPercent, milestones.toArray(
        String[]::new));
    try {
      if (displayId == null) {
        displayId = kernel.orElseThrow().display(view);
      } else {
        kernel.orElseThrow().update(displayId, view);
      }
    } catch (RuntimeException e) {
      // A display that cannot be drawn must not stop the work; the guard logs it once.
      throw new IllegalStateException("the notebook display could not be updated", e);
    } finally {
      lastUpdateNanos = now;
    }
  }

  /** What the notebook display shows: headline, training bar and the last milestones. */
  static final class View implements Displayable {
    private final String headline;
    private final String training;
    private final Optional<Double> percent;
    private final String[] milestones;

    View(String headline, String training, Optional<Double> percent, String[] milestones) {
      this.headline = headline;
      this.training = training;
      this.percent = percent;
      this.milestones = milestones.clone();
    }

    @Override
    public String toText() {
      StringBuilder text = new StringBuilder();
      for (String milestone : milestones) {
        text.append(milestone).append('\n');
      }
      if (milestones.length == 0 || !milestones[milestones.length - 1].equals(headline)) {
        text.append(headline).append('\n');
      }
      if (!training.isEmpty()) {
        percent.ifPresent(p -> {
          int filled = (int) Math.round(p / 100 * BAR);
          text.append('[').append("#".repeat(filled)).append("-".repeat(BAR - filled))
              .append("] ");
        });
        text.append(training).append('\n');
      }
      return text.toString().stripTrailing();
    }

    @Override
    public String toHtml() {
      StringBuilder html = new StringBuilder("<div class=\"fairing4j-progress\">");
      for (String milestone : milestones) {
        html.append("<div style=\"color:#555\">").append(TextTable.escape(milestone))
            .append("</div>");
      }
      if (milestones.length == 0 || !milestones[milestones.length - 1].equals(headline)) {
        html.append("<div><b>").append(TextTable.escape(headline)).append("</b></div>");
      }
      if (!training.isEmpty()) {
        html.append("<div>");
        percent.ifPresent(p -> html.append(String.format(Locale.ROOT,
            "<progress value=\"%.1f\" max=\"100\" style=\"width:16em\"></progress> ", p)));
        html.append(TextTable.escape(training)).append("</div>");
      }
      return html.append("</div>").toString();
    }

    @Override
    public String toString() {
      return toText();
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



  static String format(Duration took) {
    long millis = took.toMillis();
    return millis < 1000 ? millis + " ms"
        : String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
  }

  /** A time left: {@code 45 s}, {@code 3 min 20 s}, {@code 2 h 5 min}. */
  static String eta(Duration left) {
    long seconds = Math.max(0, left.toSeconds());
    if (seconds < 60) {
      return seconds + " s";
    }
    if (seconds < 3600) {
      return seconds / 60 + " min " + seconds % 60 + " s";
    }
    return seconds / 3600 + " h " + seconds % 3600 / 60 + " min";
  }

  @Override
  public String toString() {
    return "ConsoleProgress[" + switch (mode) {
      case PLAIN -> "plain lines";
      case UPDATING -> "updating line";
      case NOTEBOOK -> "notebook display, " + kernel.map(KernelBridge.Kernel::name).orElse("");
    } + "]";
  }
}
