package dev.fairing4j.deployer.job.internal;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Validators;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The label and annotation keys fairing4j writes, and the checks Kubernetes applies to label and
 * annotation keys and values, run before anything is sent.
 */
public final class Metadata {
  /** Marks every object the SDK creates. */
  public static final String MANAGED_BY = "app.kubernetes.io/managed-by";
  /** The value of {@link #MANAGED_BY}. */
  public static final String MANAGED_BY_VALUE = "fairing4j";
  /** The job name on every object and pod, so one selector finds everything of a job. */
  public static final String JOB_NAME = "fairing4j.dev/job-name";
  /** Identifies one run: the job name, namespace and the code it runs. */
  public static final String RUN_ID = "fairing4j.dev/run-id";
  /** Kueue's queue label. */
  public static final String KUEUE_QUEUE = "kueue.x-k8s.io/queue-name";
  /** Istio's per-pod injection switch. */
  public static final String ISTIO_INJECT = "sidecar.istio.io/inject";

  private static final Pattern NAME =
      Pattern.compile("[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");

  private Metadata() {}

  /** Checks a label key ({@code [prefix/]name}) and value (at most 63 characters, may be empty). */
  public static void checkLabel(String key, String value) {
    checkKey("label", key);
    if (value == null) {
      throw InvalidInputException.of("label " + key, "has no value", "give a value, or \"\"");
    }
    if (value.length() > Validators.MAX_LABEL
        || (!value.isEmpty() && !NAME.matcher(value).matches())) {
      throw InvalidInputException.of("label " + key, "value '" + value
          + "' is not a valid label value",
          "use at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter"
              + " or digit");
    }
  }

  /** Checks an annotation key; any value is allowed. */
  public static void checkAnnotation(String key, String value) {
    checkKey("annotation", key);
    if (value == null) {
      throw InvalidInputException.of("annotation " + key, "has no value",
          "give a value, or \"\"");
    }
  }

  private static void checkKey(String what, String key) {
    Validators.requireText(what + " key", key);
    int slash = key.lastIndexOf('/');
    String name = slash < 0 ? key : key.substring(slash + 1);
    if (slash >= 0) {
      Validators.dns1123Subdomain(what + " key prefix", key.substring(0, slash));
    }
    if (name.isEmpty() || name.length() > Validators.MAX_LABEL || !NAME.matcher(name).matches()) {
      throw InvalidInputException.of(what + " key", "'" + key + "' is not a valid key",
          "write [prefix/]name: the name at most 63 letters, digits, '-', '_' and '.', starting"
              + " and ending with a letter or digit, e.g. team or example.com/team");
    }
  }

  /** An object's {@code metadata.labels} as strings, sorted; empty when it has none. */
  public static Map<String, String> labelsOf(Map<String, Object> object) {
    Map<String, String> labels = new TreeMap<>();
    if (object.get("metadata") instanceof Map<?, ?> metadata
        && metadata.get("labels") instanceof Map<?, ?> found) {
      found.forEach((key, value) -> labels.put(String.valueOf(key), String.valueOf(value)));
    }
    return Collections.unmodifiableMap(labels);
  }
}
