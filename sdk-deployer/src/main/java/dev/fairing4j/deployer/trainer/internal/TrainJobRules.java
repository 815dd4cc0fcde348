package dev.fairing4j.deployer.trainer.internal;

import dev.fairing4j.core.InvalidInputException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * What the Trainer's CRD (its CEL rules) and webhooks, and the JobSet webhook behind them, refuse,
 * checked before anything is built or sent (CONTRACT.md (a), (b)). A TrainJob whose name is too
 * long for the JobSet's pods is accepted by the API server and fails only later, as a Warning
 * event on it; these checks catch that at once.
 */
public final class TrainJobRules {
  /** The CRD's rule for {@code storageUri}. */
  private static final Pattern STORAGE_URI = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*://.+$");
  private static final int MAX_STORAGE_URI = 2048;

  /**
   * The variables the runtime plugins set themselves, which the webhook refuses in
   * {@code trainer.env} ("must not have reserved envs"), with the plugin that reserves each.
   */
  public static final Map<String, String> RESERVED_ENV = reservedEnv();

  private TrainJobRules() {}

  private static Map<String, String> reservedEnv() {
    Map<String, String> names = new LinkedHashMap<>();
    for (String name : List.of("PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK",
        "PET_MASTER_ADDR", "PET_MASTER_PORT")) {
      names.put(name, "torch");
    }
    for (String name : List.of("OMPI_MCA_orte_default_hostfile",
        "OMPI_MCA_orte_keep_fqdn_hostnames", "OMPI_MCA_orte_set_default_slots",
        "OMPI_MCA_plm_rsh_args")) {
      names.put(name, "MPI");
    }
    for (String name : List.of("DMLC_TRACKER_URI", "DMLC_TRACKER_PORT", "DMLC_TASK_ID",
        "DMLC_NUM_WORKER")) {
      names.put(name, "XGBoost");
    }
    return java.util.Collections.unmodifiableMap(names);
  }

  /** Checks a storage URI as the CRD does: empty, or {@code scheme://...}, at most 2048. */
  public static String checkStorageUri(String field, String uri) {
    if (uri == null) {
      throw InvalidInputException.of(field, "is missing", "give a URI such as hf://org/dataset");
    }
    if (uri.length() > MAX_STORAGE_URI) {
      throw InvalidInputException.of(field, "is " + uri.length() + " characters long; the"
          + " TrainJob CRD allows " + MAX_STORAGE_URI, "shorten the URI");
    }
    if (!uri.isEmpty() && !STORAGE_URI.matcher(uri).find()) {
      throw InvalidInputException.of(field, "'" + uri + "' is not a URI: the TrainJob CRD"
          + " says \"storageUri may be empty, or it must be a valid URI (scheme://...)\"",
          "write scheme://location, e.g. hf://tatsu-lab/alpaca or s3://bucket/data");
    }
    return uri;
  }

  /** Checks {@code managedBy} against the two values the CRD allows. */
  public static String checkManagedBy(String value) {
    if (!TrainJobs.MANAGED_BY.contains(value)) {
      throw InvalidInputException.of("managedBy", "'" + value + "' is not allowed: the TrainJob"
          + " CRD says \"ManagedBy must be trainer.kubeflow.org/trainjob-controller or"
          + " kueue.x-k8s.io/multikueue if set\"", "use one of " + TrainJobs.MANAGED_BY
          + ", or leave it unset");
    }
    return value;
  }

  /**
   * Refuses environment variable names a runtime plugin sets itself: the webhook would reject
   * the TrainJob ("must not have reserved envs"), and if it did not, the value would fight the
   * plugin's.
   */
  public static void checkEnvNames(Iterable<String> names) {
    Set<String> reserved = new TreeSet<>();
    for (String name : names) {
      if (RESERVED_ENV.containsKey(name)) {
        reserved.add(name);
      }
    }
    if (!reserved.isEmpty()) {
      String first = reserved.iterator().next();
      throw InvalidInputException.of("env", reserved + (reserved.size() == 1 ? " is" : " are")
          + " set by the Trainer's " + RESERVED_ENV.get(first) + " plugin itself, and its"
          + " webhook refuses a TrainJob that sets " + (reserved.size() == 1 ? "it" : "them")
          + " (\"must not have reserved envs\")", "drop " + String.join(", ", reserved)
          + ": numNodes(..) and numProcPerNode(..) decide PET_NNODES and PET_NPROC_PER_NODE,"
          + " the controller sets the node rank and the master address");
    }
  }

  /**
   * Checks that the JobSet's pod names fit: the JobSet webhook refuses a JobSet whose pods
   * ({@code <job>-<rjob>-0-<last index>-xxxxx}) would have names over 63 characters, and the
   * Trainer reports that only as a Warning event on the TrainJob, after the image was pushed.
   *
   * @param name the TrainJob's name, as submitted
   * @param longest the suffix of the longest pod name, from {@link #longestPodSuffix}
   * @param uniqueSuffix characters {@code uniqueName()} will still append
   */
  public static void checkNameLength(String name, String longest, int uniqueSuffix) {
    int length = name.length() + uniqueSuffix + longest.length() + TrainJobs.POD_SUFFIX;
    if (length > TrainJobs.MAX_POD_NAME) {
      int allowed = TrainJobs.MAX_POD_NAME - longest.length() - TrainJobs.POD_SUFFIX
          - uniqueSuffix;
      throw InvalidInputException.of("name", "'" + name + "'" + (uniqueSuffix > 0
          ? " with the uniqueName() suffix" : "") + " is too long for a TrainJob: its JobSet"
          + " names pods '" + name + (uniqueSuffix > 0 ? "-xxxxx" : "") + longest + "-xxxxx' ("
          + length + " characters), and the JobSet webhook refuses pod names over "
          + TrainJobs.MAX_POD_NAME + ", which would fail only after submission, as a Warning"
          + " event on the TrainJob", "shorten the name to at most " + allowed + " characters");
    }
  }

  /**
   * The suffix of the longest pod name among the replicated jobs {@code jobs} (name to pod
   * count): {@code -<rjob>-0-<last index>}.
   */
  public static String longestPodSuffix(Map<String, Integer> jobs) {
    String longest = "";
    for (Map.Entry<String, Integer> job : jobs.entrySet()) {
      String suffix = "-" + job.getKey() + "-0-" + Math.max(0, job.getValue() - 1);
      if (suffix.length() > longest.length()) {
        longest = suffix;
      }
    }
    return longest;
  }
}
