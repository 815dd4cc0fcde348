package dev.fairing4j.deployer.kubernetes.internal.jobs;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.internal.Owner;
import dev.fairing4j.deployer.kubernetes.internal.transport.ClusterConfig;
import dev.fairing4j.deployer.kubernetes.internal.transport.ClusterConfigResolver;
import dev.fairing4j.deployer.kubernetes.internal.transport.ClusterSettings;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeEnvironment;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeRest;
import dev.fairing4j.deployer.kubernetes.internal.transport.Timings;
import io.kubernetes.client.openapi.ApiClient;
import java.util.Objects;

/**
 * The lazily opened connection of one cluster value: the configuration is resolved on the first
 * call that needs it (files only), the client on the first call that needs the network. A cold
 * JVM that only renders manifests never pays for either.
 *
 * <p>The runtime whose work opens the client (a pipeline's run, a wait, a client call) owns what
 * it opened: its connection pool and shared watches. When that runtime closes, waits on the
 * watches fail saying so and the pool is emptied; the next call opens them again, for the
 * runtime it works for then.
 */
public final class KubeConnection {
  // Closes what the connection opened when the runtime that opened it closes; held here so the
  // runtime's weak tracking keeps it exactly as long as this connection lives.
  private final AutoCloseable release = this::release;
  private final ClusterSettings settings;
  private final KubeEnvironment environment;
  private final Timings timings;
  private ClusterConfig config;
  private KubeRest rest;
  private JobWatchHub watches;
  private final java.util.Map<String, Object> facts = new java.util.HashMap<>();

  /**
   * A connection for {@code settings} in {@code environment}, its requests bounded by
   * {@code timings}; nothing is read yet.
   */
  public KubeConnection(ClusterSettings settings, KubeEnvironment environment, Timings timings) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.environment = Objects.requireNonNull(environment, "environment");
    this.timings = Objects.requireNonNull(timings, "timings");
  }

  /** How often this connection polls and how long it waits for a deletion. */
  public Timings timings() {
    return timings;
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
      ApiClient client = resolved.clients().get()
          .setReadTimeout((int) timings.requestTimeout().toMillis());
      rest = new KubeRest(client, resolved).withBudget(timings.retryBudget());
      Owner.current().track(release);
    }
    return rest;
  }

  private void release() {
    KubeRest opened;
    JobWatchHub hub;
    synchronized (this) {
      opened = rest;
      hub = watches;
      rest = null;
      watches = null;
    }
    if (hub != null) {
      hub.close(FairingException.of("wait for the job",
          "the FairingRuntime this wait ran on was closed",
          "attach to the job again from an open runtime (the job itself keeps running)"));
    }
    if (opened != null) {
      opened.release();
    }
  }

  /**
   * A fact about the cluster read once per connection (which TrainJob shape its Trainer takes,
   * say): {@code read}'s answer, remembered when it is present. Empty answers are read again
   * next time (the CRD may be installed meanwhile).
   */
  @SuppressWarnings("unchecked")
  public <T> java.util.Optional<T> fact(String key, java.util.function.Supplier<
      java.util.Optional<T>> read) {
    synchronized (facts) {
      if (facts.containsKey(key)) {
        return java.util.Optional.of((T) facts.get(key));
      }
    }
    java.util.Optional<T> answer = read.get();
    answer.ifPresent(value -> {
      synchronized (facts) {
        facts.put(key, value);
      }
    });
    return answer;
  }

  /**
   * The shared job watches of this connection, so every handle obtained through it (submitted,
   * attached, or from one {@code TrainingClient}) waits on one watch per namespace and kind.
   * Built on first use.
   */
  public synchronized JobWatchHub watchHub() {
    if (watches == null) {
      watches = new JobWatchHub(rest(), timings);
    }
    return watches;
  }
}
