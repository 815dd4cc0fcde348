package dev.fairing4j.core;

import dev.fairing4j.core.internal.Validators;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * One run among several of the same built image (a sweep's point, an experiment's trial): the
 * job's own name, and what it adds to the deployer's settings: arguments after the deployer's
 * own, environment variables in every replica, labels on every object. See
 * {@link BuiltPipeline#run(JobVariant)}.
 *
 * @param name the job's name, replacing the deployer's (a DNS-1035 label)
 * @param args appended to the deployer's container arguments
 * @param env set in every replica, replacing a deployer's variable of the same name
 * @param labels added to every object and pod, sorted
 */
public record JobVariant(String name, List<String> args, Map<String, String> env,
    Map<String, String> labels) {

  /** Checks the name and copies the parts. */
  public JobVariant {
    Validators.dns1035Label("name", name);
    args = List.copyOf(args);
    env = Collections.unmodifiableMap(new LinkedHashMap<>(env));
    labels = Collections.unmodifiableMap(new TreeMap<>(labels));
  }

  /** A run named {@code name} that adds nothing. */
  public static JobVariant named(String name) {
    return new JobVariant(name, List.of(), Map.of(), Map.of());
  }

  /** With {@code more} arguments after those given so far. */
  public JobVariant args(List<String> more) {
    List<String> all = new ArrayList<>(args);
    more.forEach(arg -> all.add(Objects.requireNonNull(arg, "args element")));
    return new JobVariant(name, all, env, labels);
  }

  /** With one more environment variable. */
  public JobVariant env(String key, String value) {
    Map<String, String> all = new LinkedHashMap<>(env);
    all.put(Objects.requireNonNull(key, "env name"), Objects.requireNonNull(value, "env value"));
    return new JobVariant(name, args, all, labels);
  }

  /** With one more label. */
  public JobVariant label(String key, String value) {
    Map<String, String> all = new LinkedHashMap<>(labels);
    all.put(Objects.requireNonNull(key, "label key"), Objects.requireNonNull(value,
        "label value"));
    return new JobVariant(name, args, env, all);
  }
}
