package dev.fairing4j.core;

/**
 * A cluster that builds images in a pod of its own, as Kubeflow Fairing's {@code cluster}
 * builder did with Kaniko: the build context travels to the pod, the pod builds and pushes, and
 * nothing of it is left afterwards. {@code Clusters.kubernetes()} is one; a builder reaches it
 * through this interface, so the builder needs no Kubernetes of its own.
 */
public interface BuildSite {
  /** Where builds run, for messages: e.g. {@code kubernetes (context kit, namespace team)}. */
  String describe();

  /**
   * Checks the site's own configuration (its kubeconfig, say) before anything is sent.
   *
   * @throws InvalidInputException when it cannot be read
   */
  void validateBuildSite();

  /**
   * Runs {@code build} in a pod, streams its progress and log lines to {@code progress}, and
   * removes the pod and whatever it created for the build, also when the build fails, times out
   * or is interrupted.
   *
   * @return the pushed image, pinned to its digest
   * @throws FairingException when the build fails: the step and the last lines of its log
   */
  ImageRef buildInPod(PodBuild build, ProgressListener progress);
}
