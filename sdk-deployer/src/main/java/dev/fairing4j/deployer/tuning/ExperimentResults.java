package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.Displayable;
import dev.fairing4j.core.internal.Durations;
import dev.fairing4j.core.internal.KernelBridge;
import dev.fairing4j.core.internal.TextTable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An experiment as it stands: its phase and why, and every trial (parameters, status, objective,
 * duration, and why it failed when one did). A notebook cell ending with one shows the table;
 * {@link #best()} is the trial to keep; {@link #plot()} and {@link #parameterPlot()} draw them.
 *
 * @param name the experiment's name
 * @param objective what it optimizes
 * @param phase running, or how it ended
 * @param reason why it ended, or what it is doing
 * @param trials every trial proposed so far, by number
 * @param reportedBest the name of the trial the controller running the experiment names as best
 *     (Katib's {@code currentOptimalTrial}, the Trainer's {@code result}), once it has; empty
 *     where this JVM runs the trials
 */
public record ExperimentResults(String name, Objective objective, ExperimentPhase phase,
    String reason, List<Trial> trials, Optional<String> reportedBest) implements Displayable {

  /** Copies the trials. */
  public ExperimentResults {
    KernelBridge.install();  // the first displayable value registers the renderer
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(objective, "objective");
    Objects.requireNonNull(phase, "phase");
    Objects.requireNonNull(reason, "reason");
    trials = List.copyOf(trials);
    Objects.requireNonNull(reportedBest, "reportedBest");
  }

  /** Results no controller has named a best trial in: this JVM compares the trials. */
  public ExperimentResults(String name, Objective objective, ExperimentPhase phase,
      String reason, List<Trial> trials) {
    this(name, objective, phase, reason, trials, Optional.empty());
  }

  /**
   * The trial to keep: the one the controller names ({@link #reportedBest()}) when it has named
   * a succeeded one, else the succeeded trial with the best objective value (the first one
   * proposed among equals); empty while none has succeeded. The results
   * {@link ExperimentRun#waitForCompletion} returns always have one: an experiment that ends
   * without a succeeded trial has failed, and that wait throws
   * {@link ExperimentFailedException} saying why.
   */
  public Optional<Trial> best() {
    Optional<Trial> reported = reportedBest.flatMap(named -> trials.stream()
        .filter(t -> t.name().equals(named) && t.status() == TrialStatus.SUCCEEDED)
        .findFirst());
    if (reported.isPresent()) {
      return reported;
    }
    Comparator<Trial> byValue = Comparator.comparing(t -> t.objective().orElseThrow());
    if (objective.direction() == Objective.Direction.MAXIMIZE) {
      byValue = byValue.reversed();
    }
    return trials.stream().filter(t -> t.status() == TrialStatus.SUCCEEDED)
        .min(byValue.thenComparing(Trial::number));
  }

  /**
   * The objective of each trial in order, with the best so far: a notebook shows it,
   * {@code save(Path.of("trials.png"))} writes it.
   *
   * @throws dev.fairing4j.core.FairingException when no trial has an objective value yet
   */
  public TrialPlot plot() {
    return TrialPlot.perTrial(this);
  }

  /**
   * The objective against each parameter, a panel each.
   *
   * @throws dev.fairing4j.core.FairingException when no trial has an objective value yet
   */
  public TrialPlot parameterPlot() {
    return TrialPlot.perParameter(this);
  }

  /** How many trials have {@code status}. */
  public long count(TrialStatus status) {
    return trials.stream().filter(t -> t.status() == status).count();
  }

  /** The trial numbered {@code number} (from 1), if proposed. */
  public Optional<Trial> trial(int number) {
    return trials.stream().filter(t -> t.number() == number).findFirst();
  }

  /**
   * The trial whose job is called {@code name} ({@link Trial#name()}: {@code <experiment>-<n>}
   * where this JVM runs the trials, Katib's or the Trainer's trial name on a cluster).
   */
  public Optional<Trial> trial(String name) {
    return trials.stream().filter(t -> t.name().equals(name)).findFirst();
  }

  private List<String> header() {
    List<String> header = new ArrayList<>(List.of("TRIAL", "STATUS"));
    header.addAll(parameterNames());
    header.add(objective.metric());
    header.add("DURATION");
    if (hasMessages()) {
      header.add("MESSAGE");
    }
    return header;
  }

  private List<List<String>> rows() {
    Optional<Integer> best = best().map(Trial::number);
    List<List<String>> rows = new ArrayList<>();
    for (Trial trial : trials) {
      List<String> row = new ArrayList<>();
      row.add(trial.number() + (best.filter(b -> b == trial.number()).isPresent() ? " *" : ""));
      row.add(trial.status().toString());
      parameterNames().forEach(name -> row.add(trial.parameters().getOrDefault(name, "")));
      row.add(trial.objective().map(TrialPlan::render).orElse(""));
      row.add(trial.duration().map(Durations::human).orElse(""));
      if (hasMessages()) {
        row.add(trial.message().map(ExperimentResults::shortened).orElse(""));
      }
      rows.add(row);
    }
    return rows;
  }

  private List<String> parameterNames() {
    return trials.stream().findFirst().map(t -> List.copyOf(t.parameters().keySet()))
        .orElse(List.of());
  }

  private boolean hasMessages() {
    return trials.stream().anyMatch(t -> t.message().isPresent());
  }

  // A table cell: the first 80 characters of why a trial failed; Trial.message() has it all.
  private static String shortened(String message) {
    String line = message.replace('\n', ' ');
    return line.length() <= 80 ? line : line.substring(0, 77) + "...";
  }

  /** One line: the phase, the reason, and the best trial so far. */
  public String summary() {
    return "experiment " + name + ": " + phase + " (" + reason + ")" + best().map(b -> "; best: "
        + "trial " + b.number() + " " + objective.metric() + "=" + TrialPlan.render(
            b.objective().orElseThrow()) + " with " + b.describeParameters())
        .orElse("; no trial has " + objective.metric() + " yet");
  }

  /** The table as HTML, for notebooks; the best trial is marked {@code *}. */
  @Override
  public String toHtml() {
    String caption = "<p>" + TextTable.escape(summary()) + "</p>";
    return trials.isEmpty() ? caption : TextTable.html(header(), rows()) + caption;
  }

  /** The same as {@code toString()}. */
  @Override
  public String toText() {
    return toString();
  }

  /** The trials as a table, the best marked {@code *}, and the summary line. */
  @Override
  public String toString() {
    return trials.isEmpty() ? summary() : TextTable.text(header(), rows()) + "\n" + summary();
  }
}
