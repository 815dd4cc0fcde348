package dev.fairing4j.deployer.kubernetes.internal.jobs;

import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeRest;
import dev.fairing4j.deployer.kubernetes.internal.transport.ListWatch;
import dev.fairing4j.deployer.kubernetes.internal.transport.ResourceRef;
import dev.fairing4j.deployer.kubernetes.internal.transport.Timings;
import dev.fairing4j.deployer.kubernetes.internal.transport.WatchStream;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One list+watch per (namespace, kind) shared by every job being waited for through one cluster
 * connection, so 200 concurrent {@code waitForCompletion} calls cost one watch, not 200.
 *
 * <p>While at least one waiter is subscribed, a daemon thread lists and watches the kind's jobs
 * labelled {@code app.kubernetes.io/managed-by=fairing4j} on the SDK's one {@link ListWatch}
 * loop (the one a single wait uses). Every object seen (in a list or an event)
 * is handed to the waiters of that job; after each list, waiters whose job was absent are told
 * so, since it may have been deleted while no watch was open. The last state of every job seen
 * is kept while the watch runs, so a waiter that subscribes later is told at once what the watch
 * already saw (or, for a job it has not seen, to read the job). When the last waiter leaves, the
 * open watch is cancelled and the thread ends; the next subscriber starts a fresh one.
 *
 * <p>A watch the server refuses (400, 403, 405, 501) is reported to the waiters, which fall back
 * to following their job on their own. A restarting or busy server (429 or 503 on the watch or
 * the list, or nobody listening) is asked again after a pause while the waiters keep waiting;
 * any other API error is handed to them to throw.
 */
public final class JobWatchHub {
  private static final Logger LOG = LoggerFactory.getLogger(JobWatchHub.class);
  /** The label every job the SDK creates carries; the shared watch sees only those. */
  public static final String MANAGED_BY_SELECTOR = "app.kubernetes.io/managed-by=fairing4j";

  private final KubeRest rest;
  private final Timings timings;
  private final Map<Key, SharedWatch> watches = new HashMap<>();

  private record Key(ResourceRef resource, String namespace) {}

  /** What a waiter learns about its job. */
  public sealed interface Signal {
    /** The job object as listed or watched. */
    record Seen(Map<String, Object> object) implements Signal {}

    /** The job was deleted, or absent from a fresh list. */
    record Gone() implements Signal {}

    /** The API server refuses to watch: follow the job some other way. */
    record Refused(int code) implements Signal {}

    /** The API server answered with an error the waiter should throw. */
    record Failed(RuntimeException error) implements Signal {}
  }

  /** A hub for the connection {@code rest}; starts nothing until someone subscribes. */
  public JobWatchHub(KubeRest rest, Timings timings) {
    this.rest = Objects.requireNonNull(rest, "rest");
    this.timings = Objects.requireNonNull(timings, "timings");
  }

  /**
   * Registers interest in {@code job}: from now on every state of it the shared watch sees is
   * queued on the subscription. The watch itself runs once some subscription is
   * {@link Subscription#start() started}, so a caller can register, read the job, and only then
   * decide whether the shared watch can see it. Close the subscription when done.
   */
  public Subscription subscribe(JobRef job) {
    Objects.requireNonNull(job, "job");
    SharedWatch watch;
    synchronized (watches) {
      watch = watches.computeIfAbsent(new Key(job.resource(), job.namespace()),
          k -> new SharedWatch(k));
    }
    Subscription subscription = new Subscription(watch, job.name());
    watch.add(subscription);
    return subscription;
  }

  /**
   * Ends every shared watch now: each waiter is handed {@code why} to throw, and the threads end.
   * What the owning connection does when its runtime closes.
   */
  public void close(RuntimeException why) {
    List<SharedWatch> all;
    synchronized (watches) {
      all = List.copyOf(watches.values());
      watches.clear();
    }
    all.forEach(watch -> watch.end(why));
  }

  /** A waiter's registration: the signals about its job, in the order they were seen. */
  public static final class Subscription implements AutoCloseable {
    private final SharedWatch watch;
    private final String name;
    private final BlockingQueue<Signal> signals = new LinkedBlockingQueue<>();

    private Subscription(SharedWatch watch, String name) {
      this.watch = watch;
      this.name = name;
    }

    /**
     * The next signal, waiting at most {@code nanos}; empty when none came in time.
     *
     * @throws InterruptedException when the waiting thread is interrupted
     */
    public Optional<Signal> next(long nanos) throws InterruptedException {
      return Optional.ofNullable(signals.poll(Math.max(0, nanos), TimeUnit.NANOSECONDS));
    }

    void offer(Signal signal) {
      signals.add(signal);
    }

    /**
     * Makes sure the shared watch runs. Signals for this job are queued from the subscription
     * on; a watch started now begins with a list, so nothing between the two is missed.
     */
    public void start() {
      watch.start();
    }

    /** Stops receiving signals; the shared watch ends with its last subscription. */
    @Override
    public void close() {
      watch.remove(this);
    }
  }

  /** The list+watch of one (namespace, kind) and its subscribers. */
  private final class SharedWatch {
    private final Key key;
    private final Map<String, Set<Subscription>> waiters = new HashMap<>();
    // The last state of every job this watch saw, so a waiter that subscribes while the watch
    // runs learns what happened before it came (an informer's cache, for this one use).
    private final Map<String, Map<String, Object>> lastSeen = new HashMap<>();
    // Whether lastSeen holds every job of the last list (and what the watch saw since).
    private boolean listed;
    private Thread thread;
    private WatchStream open;

    SharedWatch(Key key) {
      this.key = key;
    }

    synchronized void add(Subscription subscription) {
      waiters.computeIfAbsent(subscription.name, n -> new HashSet<>()).add(subscription);
      Map<String, Object> known = lastSeen.get(subscription.name);
      if (known != null) {
        subscription.offer(new Signal.Seen(known));
      } else if (listed) {
        // Not seen by a running watch: deleted before this subscription, or created so recently
        // that its event is still on the way. The waiter reads the job to tell which.
        subscription.offer(new Signal.Gone());
      }
    }

    synchronized void start() {
      if (thread == null && !waiters.isEmpty()) {
        thread = new Thread(this::run, "fairing4j-watch-" + key.resource().plural() + "-"
            + key.namespace());
        thread.setDaemon(true); // never keeps a JVM, a JShell or a notebook kernel alive
        thread.start();
      }
    }

    synchronized void remove(Subscription subscription) {
      Set<Subscription> set = waiters.get(subscription.name);
      if (set != null && set.remove(subscription) && set.isEmpty()) {
        waiters.remove(subscription.name);
      }
      if (waiters.isEmpty() && open != null) {
        open.close(); // nobody listens: end the watch now rather than at its server timeout
      }
    }

    /** Tells every waiter {@code why}, forgets them, and ends the watch and its thread. */
    void end(RuntimeException why) {
      broadcast(new Signal.Failed(why));
      Thread running;
      synchronized (this) {
        waiters.clear();
        if (open != null) {
          open.close();
        }
        running = thread;
      }
      if (running != null) {
        running.interrupt();
      }
    }

    /** Whether to go on; when not, the thread is forgotten so the next subscriber starts one. */
    private synchronized boolean wanted() {
      if (waiters.isEmpty()) {
        thread = null;
        lastSeen.clear(); // the next watch starts with a list
        listed = false;
        return false;
      }
      return true;
    }

    private synchronized boolean opened(WatchStream stream) {
      if (waiters.isEmpty()) {
        stream.close();
        return false;
      }
      open = stream;
      return true;
    }

    private synchronized void closed() {
      open = null;
    }

    private void run() {
      ListWatch loop = new ListWatch(rest, key.resource(), Optional.of(key.namespace()),
          ListWatch.Selector.byLabel(MANAGED_BY_SELECTOR), timings,
          key.resource().plural() + " in " + key.namespace());
      while (wanted()) {
        try {
          loop.run(ListWatch.NO_DEADLINE, new ListWatch.Handler() {
            @Override
            public boolean wanted() {
              return listening();
            }

            @Override
            public void listed(KubeRest.Listing listing) {
              relisted(listing);
            }

            @Override
            public void seen(Map<String, Object> object) {
              dispatch(name(object), new Signal.Seen(object));
            }

            @Override
            public void deleted(Map<String, Object> object) {
              dispatch(name(object), new Signal.Gone());
            }

            @Override
            public boolean refused(int code) {
              LOG.debug("Watching {} in {} refused with {}", key.resource().plural(),
                  key.namespace(), code);
              broadcast(new Signal.Refused(code));
              return true; // a later subscriber may be allowed what this one was not
            }

            @Override
            public void failed(KubernetesApiException error) {
              // Each waiter would have failed on its own request the same way.
              broadcast(new Signal.Failed(error));
            }

            @Override
            public boolean opened(WatchStream stream) {
              return SharedWatch.this.opened(stream);
            }

            @Override
            public void closed() {
              SharedWatch.this.closed();
            }
          });
        } catch (RuntimeException e) {
          LOG.warn("Watch of {} in {} failed: {}", key.resource().plural(), key.namespace(),
              e.toString());
          broadcast(new Signal.Failed(e));
          pause();
        }
      }
    }

    // Without wanted()'s side effects: asked between events, and only the loop in run() may
    // forget the thread, or a subscriber arriving in between would find two running.
    private synchronized boolean listening() {
      return !waiters.isEmpty();
    }

    /** Hands every listed job to its waiters and tells the others their job is absent. */
    private void relisted(KubeRest.Listing listing) {
      Set<String> present = new HashSet<>();
      synchronized (this) {
        lastSeen.clear();
        listed = false;
      }
      for (Map<String, Object> object : listing.items()) {
        String name = name(object);
        present.add(name);
        dispatch(name, new Signal.Seen(object));
      }
      List<String> absent;
      synchronized (this) {
        absent = waiters.keySet().stream().filter(n -> !present.contains(n)).toList();
        // From here a new subscriber learns from lastSeen; before, from this list's dispatch.
        listed = true;
      }
      absent.forEach(name -> dispatch(name, new Signal.Gone()));
    }

    private void dispatch(String name, Signal signal) {
      Set<Subscription> targets;
      synchronized (this) {
        if (signal instanceof Signal.Seen seen) {
          lastSeen.put(name, seen.object());
        } else if (signal instanceof Signal.Gone) {
          lastSeen.remove(name);
        }
        Set<Subscription> set = waiters.get(name);
        if (set == null) {
          return;
        }
        targets = Set.copyOf(set);
      }
      targets.forEach(s -> s.offer(signal));
    }

    private void broadcast(Signal signal) {
      List<Subscription> targets;
      synchronized (this) {
        targets = waiters.values().stream().flatMap(Set::stream).toList();
      }
      targets.forEach(s -> s.offer(signal));
    }

    private void pause() {
      try {
        Thread.sleep(Math.max(1, timings.poll().toMillis()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static String name(Map<String, Object> object) {
    return JsonTree.string(object, "metadata", "name").orElse("");
  }
}
