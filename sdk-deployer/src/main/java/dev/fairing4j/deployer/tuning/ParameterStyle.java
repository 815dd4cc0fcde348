package dev.fairing4j.deployer.tuning;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How a trial's parameters reach the script: as command-line arguments ({@code --lr=0.01},
 * after the deployer's own, as Katib's examples pass them), as environment variables
 * ({@code LR=0.01}: the name upper-cased, {@code -} as {@code _}), or as the variables Trainer's
 * OptimizationJob sets ({@code KUBEFLOW_TRAINER_OPT_LR=0.01}).
 */
public enum ParameterStyle {
  /** {@code --<name>=<value>}, appended to the deployer's arguments. */
  ARGS,
  /** {@code <NAME>=<value>} in every replica's environment. */
  ENV,
  /**
   * {@code KUBEFLOW_TRAINER_OPT_<NAME>=<value>} in every replica's environment, as Trainer's
   * OptimizationJob hands values to a TrainJob: a script written for the OptimizationJob (one
   * that reads {@code KUBEFLOW_TRAINER_OPT_LR}) runs unchanged on every backend, and under the
   * OptimizationJob the Trainer sets the variables itself.
   */
  TRAINER_ENV;

  /** The prefix of the variables {@link #TRAINER_ENV} sets. */
  public static final String TRAINER_PREFIX = "KUBEFLOW_TRAINER_OPT_";

  /** The arguments {@code assignment} adds in this style; none but for {@link #ARGS}. */
  public List<String> args(Map<String, String> assignment) {
    List<String> args = new ArrayList<>();
    if (this == ARGS) {
      assignment.forEach((name, value) -> args.add("--" + name + "=" + value));
    }
    return args;
  }

  /** The environment {@code assignment} sets in this style; none for {@link #ARGS}. */
  public Map<String, String> env(Map<String, String> assignment) {
    Map<String, String> env = new LinkedHashMap<>();
    if (this != ARGS) {
      String prefix = this == TRAINER_ENV ? TRAINER_PREFIX : "";
      assignment.forEach((name, value) -> env.put(prefix + variable(name), value));
    }
    return env;
  }

  /** The environment variable a parameter is in: {@code batch-size} is {@code BATCH_SIZE}. */
  public static String variable(String parameter) {
    return parameter.toUpperCase(Locale.ROOT).replace('-', '_');
  }
}
