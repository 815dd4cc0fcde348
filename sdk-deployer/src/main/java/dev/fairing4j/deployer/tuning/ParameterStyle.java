package dev.fairing4j.deployer.tuning;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How a trial's parameters reach the script: as command-line arguments ({@code --lr=0.01},
 * after the deployer's own, as Katib's examples pass them) or as environment variables
 * ({@code LR=0.01}: the name upper-cased, {@code -} as {@code _}).
 */
public enum ParameterStyle {
  /** {@code --<name>=<value>}, appended to the deployer's arguments. */
  ARGS,
  /** {@code <NAME>=<value>} in every replica's environment. */
  ENV;

  /** The arguments {@code assignment} adds in this style; none for {@link #ENV}. */
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
    if (this == ENV) {
      assignment.forEach((name, value) -> env.put(variable(name), value));
    }
    return env;
  }

  /** The environment variable a parameter is in: {@code batch-size} is {@code BATCH_SIZE}. */
  public static String variable(String parameter) {
    return parameter.toUpperCase(Locale.ROOT).replace('-', '_');
  }
}
