package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.TrainingJob;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One trial of an experiment as it stands: the parameters it was given, its status, its
 * objective value once it succeeded, how long it ran, and its job (logs, metrics, status).
 *
 * @param number the trial's number, from 1 in the order proposed
 * @param name its job's name: {@code <experiment>-<number>} where this JVM runs the trials,
 *     the name Katib or the Trainer gave it otherwise
 * @param parameters each parameter's value as the script received it, in name order
 * @param status where it is
 * @param objective the objective metric's value, by the objective's strategy, once it succeeded
 * @param duration how long its job ran, once finished
 * @param message why it failed, when it did
 * @param job its job, once submitted
 */
public record Trial(int number, String name, Map<String, String> parameters, TrialStatus status,
    Optional<Double> objective, Optional<Duration> duration, Optional<String> message,
    Optional<TrainingJob> job) {

  /** Copies the parameters, in name order. */
  public Trial {
    Objects.requireNonNull(name, "name");
    parameters = Collections.unmodifiableMap(new TreeMap<>(parameters));
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(objective, "objective");
    Objects.requireNonNull(duration, "duration");
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(job, "job");
  }

  /** A proposed trial that has not started. */
  static Trial pending(int number, String name, Map<String, String> parameters) {
    return new Trial(number, name, parameters, TrialStatus.PENDING, Optional.empty(),
        Optional.empty(), Optional.empty(), Optional.empty());
  }

  /** This trial submitted as {@code submitted}. */
  Trial running(TrainingJob submitted) {
    return new Trial(number, name, parameters, TrialStatus.RUNNING, objective, duration, message,
        Optional.of(submitted));
  }

  /** This trial ended as {@code ended}. */
  Trial ended(TrialStatus ended, Optional<Double> value, Duration took, Optional<String> why) {
    return new Trial(number, name, parameters, ended, value, Optional.of(took), why, job);
  }

  /** The parameters as a script receives them as arguments: {@code lr=0.01, momentum=0.5}. */
  public String describeParameters() {
    StringBuilder text = new StringBuilder();
    parameters.forEach((key, value) -> text.append(text.length() == 0 ? "" : ", ").append(key)
        .append('=').append(value));
    return text.toString();
  }

  @Override
  public String toString() {
    return "Trial[" + number + " " + name + " " + status + " (" + describeParameters() + ")"
        + objective.map(v -> " objective=" + v).orElse("")
        + message.map(m -> ": " + m).orElse("") + "]";
  }
}
