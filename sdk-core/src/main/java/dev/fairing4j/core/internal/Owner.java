package dev.fairing4j.core.internal;

import dev.fairing4j.core.FairingException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The inside of a {@link dev.fairing4j.core.FairingRuntime}: the parts it owns (a thread pool, a
 * cache, the spare supervisor), made on first use and closed with it, and the live resources its
 * work started (a watch, a log follower, a phase relay), tracked weakly so that one its user drops
 * without closing is forgotten with it rather than kept for the owner's life.
 *
 * <p>Code deep in the SDK finds its owner with {@link #current()}: the owner whose work the
 * calling thread does ({@link #call}), else the shared one. Objects that outlive the call that
 * made them (job handles, connections) keep the owner they were made under.
 *
 * <p>A {@link #with variant} shares its base's parts, resources and lifecycle (closing either
 * closes both) and differs only in the settings it carries, as OkHttp's derived clients share
 * their pool and dispatcher.
 */
public final class Owner {
  private static final Logger LOG = LoggerFactory.getLogger(Owner.class);

  @JvmWide(why = "the owner of the one-liners (Fairing.pipeline(), Clusters.local()) that name "
      + "none; its parts start again after close()", bound = "one")
  private static final Owner SHARED = new Owner("shared", true);

  @JvmWide(why = "which owner the calling thread works for, set only inside call()",
      bound = "one entry per thread inside call(), removed when the call returns")
  private static final ThreadLocal<Owner> BOUND = new ThreadLocal<>();

  private final String name;
  private final boolean reopens;
  /** The owner whose machinery this one uses: itself, or the base of a variant. */
  private final Owner base;
  private final Map<Class<?>, Object> settings;
  private final Map<Object, AutoCloseable> parts = new LinkedHashMap<>();
  private final Set<AutoCloseable> live = Collections.newSetFromMap(new WeakHashMap<>());
  private boolean closed;

  private Owner(String name, boolean reopens) {
    this.name = name;
    this.reopens = reopens;
    this.base = this;
    this.settings = Map.of();
  }

  private Owner(Owner base, Map<Class<?>, Object> settings) {
    this.name = base.name;
    this.reopens = base.reopens;
    this.base = base;
    this.settings = settings;
  }

  /** The shared owner. */
  public static Owner shared() {
    return SHARED;
  }

  /** A new owner that refuses work once closed. */
  public static Owner create(String name) {
    return new Owner(Objects.requireNonNull(name, "name"), false);
  }

  /** The owner the calling thread works for: the one of the enclosing {@link #call}, or shared. */
  public static Owner current() {
    Owner bound = BOUND.get();
    return bound == null ? SHARED : bound;
  }

  /**
   * A variant of this owner: the same machinery and lifecycle, with {@code value} as its setting
   * of {@code type} (replacing one this owner has).
   */
  public <T> Owner with(Class<T> type, T value) {
    Objects.requireNonNull(type, "type");
    Map<Class<?>, Object> changed = new LinkedHashMap<>(settings);
    changed.put(type, type.cast(Objects.requireNonNull(value, "value")));
    return new Owner(base, Map.copyOf(changed));
  }

  /** This owner's setting of {@code type}, if a {@link #with variant} set one. */
  public <T> java.util.Optional<T> setting(Class<T> type) {
    return java.util.Optional.ofNullable(settings.get(type)).map(type::cast);
  }

  /** Whether this is the shared owner or a variant of it. */
  public boolean isShared() {
    return base == SHARED;
  }

  /** Runs {@code work} with this owner as {@link #current()}, restoring the previous one after. */
  public <T> T call(Supplier<T> work) {
    Objects.requireNonNull(work, "work");
    requireOpen();
    Owner previous = BOUND.get();
    BOUND.set(this);
    try {
      return work.get();
    } finally {
      if (previous == null) {
        BOUND.remove();
      } else {
        BOUND.set(previous);
      }
    }
  }

  /**
   * A daemon thread that runs {@code body} as this owner's work, for the threads of its parts:
   * what they start is this owner's too. Named {@code name}, followed for an owner other than the
   * shared one by the owner's name in parentheses, so a thread dump shows whose it is. Not
   * started.
   */
  public Thread thread(String name, Runnable body) {
    Objects.requireNonNull(body, "body");
    Thread thread = new Thread(() -> call(() -> {
      body.run();
      return null;
    }), isShared() ? name : name + " (" + this.name + ")");
    thread.setDaemon(true); // never keeps a JVM, a JShell or a notebook kernel alive
    return thread;
  }

  /**
   * The part under {@code key}, made by {@code make} on first use; closed (in the reverse order
   * of making) by {@link #close()}.
   *
   * @throws FairingException when this owner is closed and does not reopen
   */
  @SuppressWarnings("unchecked")
  public <T extends AutoCloseable> T part(Object key, Supplier<T> make) {
    if (base != this) {
      return base.part(key, make);
    }
    return madePart(key, make);
  }

  @SuppressWarnings("unchecked")
  private synchronized <T extends AutoCloseable> T madePart(Object key, Supplier<T> make) {
    requireOpen();
    AutoCloseable part = parts.get(key);
    if (part == null) {
      part = Objects.requireNonNull(make.get(), "part");
      parts.put(key, part);
    }
    return (T) part;
  }

  /**
   * Tracks {@code resource}, started by this owner's work, until it is {@link #forget forgotten},
   * collected, or closed by {@link #close()}. Returns it.
   *
   * @throws FairingException when this owner is closed and does not reopen
   */
  public <T extends AutoCloseable> T track(T resource) {
    if (base != this) {
      return base.track(resource);
    }
    return tracked(resource);
  }

  private synchronized <T extends AutoCloseable> T tracked(T resource) {
    requireOpen();
    live.add(Objects.requireNonNull(resource, "resource"));
    return resource;
  }

  /** Stops tracking {@code resource}; what a resource calls when it ends on its own. */
  public void forget(AutoCloseable resource) {
    synchronized (base) {
      base.live.remove(resource);
    }
  }

  /** Whether {@link #close()} was called on an owner that does not reopen. */
  public boolean isClosed() {
    synchronized (base) {
      return base.closed;
    }
  }

  /** How many parts are made and resources tracked now. */
  public int running() {
    synchronized (base) {
      return base.parts.size() + base.live.size();
    }
  }

  /**
   * Closes the tracked resources, then the parts, newest first. The shared owner stays usable:
   * its next user makes its parts again. A failure to close one is logged and the rest still
   * close.
   */
  public void close() {
    if (base != this) {
      base.close();
      return;
    }
    List<AutoCloseable> order = new ArrayList<>();
    synchronized (this) {
      order.addAll(live);
      live.clear();
      List<AutoCloseable> made = new ArrayList<>(parts.values());
      Collections.reverse(made);
      order.addAll(made);
      parts.clear();
      closed = !reopens;
    }
    for (AutoCloseable each : order) {
      try {
        each.close();
      } catch (Exception | LinkageError failed) {
        LOG.debug("closing {} of the {} runtime failed", each, name, failed);
      }
    }
  }

  /**
   * Refuses work once this owner is closed (and does not reopen).
   *
   * @throws FairingException naming the owner and the way on
   */
  public void requireOpen() {
    if (isClosed()) {
      throw FairingException.of("start work", "the FairingRuntime '" + name + "' is closed",
          "create a new one with FairingRuntime.create(), or use FairingRuntime.shared()");
    }
  }

  /** The owner's name, followed by the settings of a variant. */
  @Override
  public String toString() {
    return settings.isEmpty() ? name : name + " with " + settings.values();
  }
}
