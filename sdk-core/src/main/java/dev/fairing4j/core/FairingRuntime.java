package dev.fairing4j.core;

import dev.fairing4j.core.cache.CacheLimits;
import dev.fairing4j.core.internal.JvmWide;
import dev.fairing4j.core.internal.Owner;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The owner of the SDK's machinery, in the manner of OkHttp's client: the thread pool that pushes
 * image layers, the registry schemes and tokens it learned, the image templates and Python probes
 * it remembers, the spare local supervisor, and the live resources its work starts (job watches
 * and API connections, log followers, phase relays, stuck-pod timers). One immutable object,
 * safe to share between threads; every pipeline made from it, and every job handle and client
 * those make, uses its machinery.
 *
 * <p>{@link #shared()} is the runtime of the one-liners ({@link Fairing#pipeline()},
 * {@code TrainingClient.connect(..)} outside {@link #call}); a service that must release
 * everything when it stops (an application redeployed in its container, a test) makes its own:
 *
 * <pre>{@code
 * try (FairingRuntime runtime = FairingRuntime.create()) {
 *   TrainingJob job = runtime.pipeline().preprocessor(..).deployer(..).run();
 *   job.waitForCompletion(Duration.ofMinutes(30));
 *   TrainingClient jobs = runtime.call(() -> TrainingClient.connect(Clusters.local()));
 * } // its threads end, its connections close, the spare supervisor exits
 * }</pre>
 *
 * <p>Variants share the machinery of the runtime they derive from and differ in a setting:
 * {@code FairingRuntime.shared().withCacheLimits(limits)} builds with the shared pools and
 * connections and prunes the caches to {@code limits}. Closing a variant closes the machinery
 * they share, as shutting down an OkHttp client's dispatcher stops its derived clients too.
 *
 * <p>Closing releases machinery, never work: submitted jobs keep running (a local job under its
 * own supervisor, a Kubernetes job in the cluster) and are stopped by {@code job.delete()}. A
 * wait or a log follower running on the runtime when it closes ends with a
 * {@link FairingException} saying so. What must stay shared by the whole JVM (the JDK's trust
 * store, facts of the machine, the thread that forks local replicas) says why where it is kept,
 * with what bounds it.
 */
public final class FairingRuntime implements AutoCloseable {
  @JvmWide(why = "the runtime of the one-liners that name none; close() releases its machinery "
      + "and the next use starts it again", bound = "one")
  private static final FairingRuntime SHARED = new FairingRuntime(Owner.shared());

  private final Owner owner;

  private FairingRuntime(Owner owner) {
    this.owner = owner;
  }

  /**
   * The runtime shared by the calls that name none. Closing it releases its machinery now; the
   * next use starts it again, so a notebook or a one-liner never finds it closed.
   */
  public static FairingRuntime shared() {
    return SHARED;
  }

  /** A runtime of its own, starting nothing until used; unusable once {@link #close() closed}. */
  public static FairingRuntime create() {
    return new FairingRuntime(Owner.create("runtime-" + Integer.toHexString(
        System.identityHashCode(new Object()))));
  }

  /**
   * A variant of this runtime, sharing its machinery, whose builds prune the default caches to
   * {@code limits} rather than to {@link CacheLimits#defaults()} (when a prune is due, at most
   * hourly; {@code Caches.user().prune(limits)} prunes at once).
   */
  public FairingRuntime withCacheLimits(CacheLimits limits) {
    return new FairingRuntime(owner.with(CacheLimits.class,
        Objects.requireNonNull(limits, "limits")));
  }

  /** The cache limits this runtime's builds prune to. */
  public CacheLimits cacheLimits() {
    return owner.setting(CacheLimits.class).orElseGet(CacheLimits::defaults);
  }

  /**
   * An empty pipeline whose runs, and the job handles they return, use this runtime.
   *
   * @throws FairingException when this runtime is closed
   */
  public Pipeline pipeline() {
    owner.requireOpen();
    return Pipeline.EMPTY.ownedBy(owner);
  }

  /**
   * Runs {@code work} as this runtime's: what it starts (a {@code TrainingClient} and the handles
   * it returns, a job attached by name) uses this runtime's machinery and ends with it.
   *
   * @throws FairingException when this runtime is closed
   */
  public <T> T call(Supplier<T> work) {
    return owner.call(Objects.requireNonNull(work, "work"));
  }

  /** Whether this runtime was closed; the {@link #shared()} one never reports closed. */
  public boolean isClosed() {
    return owner.isClosed();
  }

  /**
   * Ends this runtime's threads, closes its connections, watches and log followers, retires its
   * spare supervisor and forgets its caches. Submitted jobs keep running. Idempotent.
   */
  @Override
  public void close() {
    owner.close();
  }

  /** E.g. {@code FairingRuntime(shared, 3 parts running)}. */
  @Override
  public String toString() {
    return "FairingRuntime(" + owner + (owner.isClosed() ? ", closed"
        : ", " + owner.running() + " parts running") + ")";
  }
}
