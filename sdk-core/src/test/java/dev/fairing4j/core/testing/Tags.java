package dev.fairing4j.core.testing;

/**
 * JUnit tag names for tests that need something these machines cannot have (a GPU, a Docker
 * engine, TensorFlow, a real cluster, the Trainer v2 controllers, papermill). The parent POM
 * excludes them by default ({@code excludedTestTags}); {@code mvn verify -Popt-in
 * -DincludedTestTags=gpu} runs one group.
 *
 * <p>Use the constants rather than string literals, so a typo is a compile error and not a test
 * that silently runs in the default suite: {@code @Tag(Tags.GPU)}.
 */
public final class Tags {
  /** Needs a CUDA device visible to torch. */
  public static final String GPU = "gpu";
  /** Needs a running Docker engine (not just the docker CLI). */
  public static final String DOCKER = "docker";
  /** Needs an importable TensorFlow. */
  public static final String TENSORFLOW = "tensorflow";
  /** Needs a real Kubernetes cluster with the Kubeflow training operator. */
  public static final String CLUSTER = "cluster";
  /**
   * Needs the cluster kit with the Kubeflow Trainer v2 and JobSet controllers
   * ({@code ../shared/k8s/trainer-v2}), which cannot run beside the v1 operator the rest of the
   * {@code cluster} suite needs: such tests carry both {@link #CLUSTER} and this tag, and CI runs
   * them in a phase of their own ({@code .ci/run}).
   */
  public static final String TRAINER_V2 = "trainer-v2";
  /** Needs papermill to execute notebooks. */
  public static final String PAPERMILL = "papermill";

  private Tags() {}
}
