package dev.fairing4j.deployer.kubeflow;

/** Which pods the Kubeflow operator deletes when a job ends. */
public enum CleanPodPolicy {
  /** Delete every pod. */
  ALL("All"),
  /** Delete pods still Running or Pending (e.g. parameter servers); keep finished ones. */
  RUNNING("Running"),
  /** Keep every pod, so logs stay readable after the end (the default). */
  NONE("None");

  private final String value;

  CleanPodPolicy(String value) {
    this.value = value;
  }

  /** The value written to {@code runPolicy.cleanPodPolicy}. */
  public String value() {
    return value;
  }

  @Override
  public String toString() {
    return value;
  }
}
