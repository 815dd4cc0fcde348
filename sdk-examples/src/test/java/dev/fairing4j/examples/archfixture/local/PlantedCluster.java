package dev.fairing4j.examples.archfixture.local;

import dev.fairing4j.examples.archfixture.kubeflow.internal.KindDetail;

/**
 * A cluster that reaches into a kind's room, planted so that {@link
 * dev.fairing4j.examples.ArchitectureTest} shows its kind-seam rule failing.
 */
public final class PlantedCluster {
  private PlantedCluster() {}

  /** The violation: a kind's internals read from a cluster. */
  public static String container() {
    return KindDetail.container();
  }
}
