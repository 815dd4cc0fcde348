package dev.fairing4j.examples.archfixture.kubeflow.internal;

/**
 * A stand-in for a kind room's internal type, planted for {@link
 * dev.fairing4j.examples.ArchitectureTest}'s check of its kind-seam rule.
 */
public final class KindDetail {
  private KindDetail() {}

  /** Something a cluster should ask the kind's interface for instead. */
  public static String container() {
    return "planted";
  }
}
