package dev.fairing4j.deployer.serving;

/**
 * How KServe runs an InferenceService (annotation {@code serving.kserve.io/deploymentMode}):
 * Knative's request-driven autoscaling, or a plain Deployment, Service and autoscaler.
 */
public enum DeploymentMode {
  /** A Deployment, a Service {@code <name>-predictor} and an HPA: no Knative needed. */
  RAW_DEPLOYMENT("RawDeployment"),
  /** A Knative Service: scale to zero, revisions and canary traffic split by Knative. */
  SERVERLESS("Serverless");

  /** The annotation KServe reads the mode from. */
  public static final String ANNOTATION = "serving.kserve.io/deploymentMode";

  private final String value;

  DeploymentMode(String value) {
    this.value = value;
  }

  /** The annotation's value, e.g. {@code RawDeployment}. */
  public String value() {
    return value;
  }
}
