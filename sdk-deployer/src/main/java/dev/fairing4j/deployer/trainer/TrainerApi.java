package dev.fairing4j.deployer.trainer;

/**
 * Which Kubeflow Trainer version's TrainJob shape a deployer sends. The versions in use differ
 * where a client notices: v2.2 and v2.3 take pod-level settings as {@code spec.runtimePatches}
 * and {@code numProcPerNode} as an integer; v2.0 takes them as {@code spec.podSpecOverrides},
 * pod labels and annotations as {@code spec.labels} and {@code spec.annotations}, and
 * {@code numProcPerNode} as an integer or a string. Everything else (runtime, image, command,
 * args, env, nodes, resources, initializers, suspend, deadline, managedBy) is written alike and
 * works on both. (v2.1's {@code podTemplateOverrides} is not supported: a TrainJob that needs pod
 * settings fails there with a clear error.)
 */
public enum TrainerApi {
  /**
   * The default: a dry run shows the v2.3 shape; a submission reads once per cluster connection
   * which shape the cluster's TrainJob CRD accepts (from the API server's published OpenAPI
   * schema, readable by every authenticated user) and sends that one.
   */
  AUTO,
  /**
   * Trainer v2.0: {@code podSpecOverrides}, {@code spec.labels}/{@code annotations}.
   * What v2.0 cannot express (image-pull Secrets, affinity, security contexts, a termination
   * grace period) fails validation with a clear error.
   */
  V2_0,
  /** Trainer v2.3 (and v2.2): {@code runtimePatches}, the API fairing4j targets. */
  V2_3
}
