package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.InvalidInputException;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The parameters a search varies, by name, kept in name order so that the trials an algorithm
 * proposes do not depend on the order a map was written in. A name reaches a script as
 * {@code --<name>=<value>} or as an environment variable.
 *
 * @param parameters the parameters by name
 */
public record SearchSpace(SortedMap<String, Parameter> parameters) {
  // A command-line flag and (upper-cased, '-' as '_') an environment variable name.
  private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_-]*");

  /** Copies and checks the parameters. */
  public SearchSpace {
    Objects.requireNonNull(parameters, "parameters");
    if (parameters.isEmpty()) {
      throw InvalidInputException.of("searchSpace", "has no parameters",
          "give at least one, e.g. Map.of(\"lr\", Search.logUniform(0.001, 0.1))");
    }
    parameters.forEach((name, parameter) -> {
      if (!NAME.matcher(name).matches()) {
        throw InvalidInputException.of("searchSpace", "'" + name + "' cannot be a parameter"
            + " name", "use a letter, then letters, digits, '_' or '-', e.g. lr or batch_size");
      }
      Objects.requireNonNull(parameter, name);
    });
    parameters = Collections.unmodifiableSortedMap(new TreeMap<>(parameters));
  }

  /** The space of {@code parameters}. */
  public static SearchSpace of(Map<String, ? extends Parameter> parameters) {
    return new SearchSpace(new TreeMap<>(parameters));
  }
}
