package dev.fairing4j.deploy.kubernetes.internal;

import java.util.Objects;

/**
 * The lazily opened connection of one cluster value: the configuration is resolved on the first
 * call that needs it (files only), the client on the first call that needs the network. A cold
 * JVM that only renders manifests never pays for either.
 */
public final class KubeConnection {
  private final ClusterSettings settings;
  private final KubeEnvironment environment;
  private ClusterConfig config;
  private KubeRest rest;
  private JobWatchHub watches;

  /** A connection for {@code settings} in {@code environment}; nothing is read yet. */
  public KubeConnection(ClusterSettings settings, KubeEnvironment environment) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.environment = Objects.requireNonNull(environment, "environment");
  }

  /** The resolved configuration; reads the kubeconfig on first use. */
  public synchronized ClusterConfig config() {
    if (config == null) {
      config = ClusterConfigResolver.resolve(settings, environment);
    }
    return config;
  }

  /** The request client; builds it on first use. */
  public synchronized KubeRest rest() {
    if (rest == null) {
      ClusterConfig resolved = config();
      rest = new KubeRest(resolved.clients().get(), resolved);
    }
    return rest;
  }

  /**
   * The shared job watches of this connection, so every handle obtained through it (submitted,
   * attached, or from one {@code TrainingClient}) waits on one watch per namespace and kind.
   * Built on first use with the first caller's timings (those of the cluster value that owns
   * this connection).
   */
  public synchronized JobWatchHub watchHub(Timings timings) {
    if (watches == null) {
      watches = new JobWatchHub(rest(), timings);
    }
    return watches;
  }
}
