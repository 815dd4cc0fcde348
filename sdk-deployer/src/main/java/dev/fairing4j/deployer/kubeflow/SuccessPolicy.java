package dev.fairing4j.deployer.kubeflow;

/** When the Kubeflow operator calls a TFJob succeeded. */
public enum SuccessPolicy {
  /** When the Chief succeeds, or worker 0 when there is no Chief (the operator's default). */
  CHIEF_OR_WORKER_ZERO(""),
  /** Only when every worker has succeeded. */
  ALL_WORKERS("AllWorkers");

  private final String value;

  SuccessPolicy(String value) {
    this.value = value;
  }

  /** The value written to {@code spec.successPolicy} ({@code ""} is the default). */
  public String value() {
    return value;
  }
}
