package dev.fairing4j.deployer.kubernetes.internal.transport;

import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SDK's one list+watch+resume loop over a collection, serving both a single job's wait
 * ({@code JobCompletion}: a field selector on its name) and the shared watch
 * ({@code JobWatchHub}: the managed-by label): list for a resourceVersion, watch from there with
 * bookmarks, resume a stream that ends or breaks from the last version seen, list again on 410
 * Gone (as an answer or as an ERROR event), and wait out a restarting or busy server (429, 503,
 * nobody listening) on the list or the watch after {@link Timings#poll()}.
 *
 * <p>Why not client-java's {@code SharedInformerFactory}: measured on a real kube-apiserver
 * v1.32 with client-java 27.0.0 ({@code scripts/bench.sh watch}, WatchChoiceBenchmark), an
 * informer over {@code GenericKubernetesApi} with dynamic objects (the library's way to follow a
 * CRD without generated models) never syncs a PyTorchJob collection: every list fails in its
 * reflector (a NullPointerException on the dynamic list's metadata) and is retried once a
 * second, 60 lists in the minute 20 jobs took to succeed, none of which it reported, and 20
 * more in 20 idle seconds. This loop followed the same 20 jobs to their end in 555 ms with 22
 * requests (21 lists, 1 shared watch) and sent none while nobody waited, with no watch left
 * open. For a user whose Role lacks {@code watch}, the wait here fell back to reading the job
 * and ended Succeeded (17 requests over 20 s, 2 of them the refused watches), while the
 * informer's waiter saw no end and heard of its 50 failures only through an exception handler
 * the caller must install. An informer also needs a client without a read timeout, so it could
 * not share the SDK's; and it hides the answers a wait must tell apart (a refused watch means
 * poll, a list error must reach the waiter). The SDK reads every kind as a JSON tree
 * ({@link KubeRest}), so no typed model rejects fields of a CRD version it does not know.
 */
public final class ListWatch {
  private static final Logger LOG = LoggerFactory.getLogger(ListWatch.class);
  /** A real API server ends a watch after this; we ask for a bound so stale streams recycle. */
  static final Duration SERVER_TIMEOUT = Duration.ofMinutes(5);
  private static final Duration CALL_SLACK = Duration.ofSeconds(30);
  /** A deadline for a loop that runs until its handler no longer wants it. */
  public static final long NO_DEADLINE = Long.MAX_VALUE;

  /** Which objects of the collection: by field ({@code metadata.name=..}) or by label. */
  public record Selector(Optional<String> field, Optional<String> label) {
    public static Selector byName(String name) {
      return new Selector(Optional.of("metadata.name=" + name), Optional.empty());
    }

    public static Selector byLabel(String label) {
      return new Selector(Optional.empty(), Optional.of(label));
    }
  }

  /** What the loop tells its owner; a method that throws ends the loop with that exception. */
  public interface Handler {
    /** Whether to go on; asked before every round and between events. */
    boolean wanted();

    /** Every list, the first and each one after a 410 or an ERROR event. */
    void listed(KubeRest.Listing listing);

    /** An object added or modified. */
    void seen(Map<String, Object> object);

    /** An object deleted. */
    void deleted(Map<String, Object> object);

    /** The server refuses to watch; true to ask again after a pause, false to end the loop. */
    boolean refused(int code);

    /** An API error no pause cures; returns to go on after a pause, or throws it. */
    void failed(KubernetesApiException error);

    /** A watch was opened; false to close it at once (nobody listens any more). */
    default boolean opened(WatchStream stream) {
      return true;
    }

    /** The watch opened last has ended. */
    default void closed() {}
  }

  /** Why {@link #run} returned. */
  public enum End { UNWANTED, DEADLINE, REFUSED }

  private final KubeRest rest;
  private final ResourceRef resource;
  private final Optional<String> namespace;
  private final Selector selector;
  private final Timings timings;
  private final String what;

  public ListWatch(KubeRest rest, ResourceRef resource, Optional<String> namespace, Selector selector,
      Timings timings, String what) {
    this.rest = Objects.requireNonNull(rest, "rest");
    this.resource = Objects.requireNonNull(resource, "resource");
    this.namespace = Objects.requireNonNull(namespace, "namespace");
    this.selector = Objects.requireNonNull(selector, "selector");
    this.timings = Objects.requireNonNull(timings, "timings");
    this.what = Objects.requireNonNull(what, "what");
  }

  /**
   * Lists and watches until the handler no longer wants to, {@code deadlineNanos} (a
   * {@link System#nanoTime()} value, or {@link #NO_DEADLINE}) passes, or a refused
   * watch is not to be asked again.
   */
  public End run(long deadlineNanos, Handler handler) {
    String version = null;
    boolean first = true;
    while (handler.wanted()) {
      long left = left(deadlineNanos);
      if (left <= 0 && !first) {
        return End.DEADLINE; // a wait already past its deadline still reads the job once
      }
      first = false;
      Duration remaining = Duration.ofNanos(Math.max(1, left));
      boolean progressed = false;
      try {
        if (version == null) {
          KubeRest.Listing listing = rest.listing(resource, namespace, selector.label(),
              selector.field());
          handler.listed(listing);
          version = listing.resourceVersion();
          continue; // the list may have been all the handler wanted
        }
        WatchStream stream = open(version, min(remaining, SERVER_TIMEOUT),
            min(remaining, SERVER_TIMEOUT.plus(CALL_SLACK)));
        if (!handler.opened(stream)) {
          stream.close();
          continue;
        }
        try (stream) {
          int code = stream.code();
          if (code == 410) {
            version = null;
            continue;
          }
          if (code == 400 || code == 403 || code == 405 || code == 501) {
            if (!handler.refused(code)) {
              return End.REFUSED;
            }
          } else if (TemporaryAnswers.temporary(code)) {
            // A restarting server: ask again after the pause below, from the same version.
            LOG.debug("Watch for {} answered {}; trying again", what, code);
          } else if (code < 200 || code >= 300) {
            handler.failed(rest.error(Operation.onCollection("watch", resource, namespace),
                stream.error()));
          } else {
            Optional<Map<String, Object>> event;
            while (handler.wanted() && (event = stream.next()).isPresent()) {
              Optional<String> next = handle(event.get(), handler);
              if (next.isEmpty()) {
                version = null;
                break; // an ERROR is no progress: a server repeating it gets the pause below
              }
              progressed = true;
              version = next.get().isEmpty() ? version : next.get();
            }
          }
        } finally {
          handler.closed();
        }
      } catch (IOException e) {
        // A dropped connection, the call's bound or our own cancel: resume from the last
        // version seen.
        LOG.debug("Watch of {} ended: {}", what, e.toString());
      } catch (KubernetesApiException e) {
        // A list, or a read the handler made for an event, met by a restarting server: the
        // version was not advanced, so the next round picks up from there.
        if (!TemporaryAnswers.temporary(e)) {
          handler.failed(e);
        } else {
          LOG.debug("Listing for {} failed for now: {}", what, e.getMessage());
        }
      }
      long after = left(deadlineNanos);
      if (!progressed && after > 0 && handler.wanted()) {
        // A stream that ends at once (a flapping proxy) must not turn into a busy loop.
        Timings.sleep(min(Duration.ofNanos(after), timings.poll()), what);
      }
    }
    return End.UNWANTED;
  }

  private WatchStream open(String version, Duration serverTimeout, Duration callTimeout)
      throws IOException {
    return selector.field().isPresent()
        ? rest.watch(resource, namespace, selector.field().get(), version, serverTimeout,
            callTimeout)
        : rest.watchLabelled(resource, namespace, selector.label().orElse(""), version,
            serverTimeout, callTimeout);
  }

  /** Handles one event; the version to resume from ("" for none), empty to list again. */
  private static Optional<String> handle(Map<String, Object> event, Handler handler) {
    String type = JsonTree.string(event, "type").orElse("");
    Map<String, Object> object = JsonTree.map(event, "object");
    String version = JsonTree.string(object, "metadata", "resourceVersion").orElse("");
    switch (type) {
      case "ADDED", "MODIFIED" -> handler.seen(object);
      case "DELETED" -> handler.deleted(object);
      case "ERROR" -> {
        LOG.debug("A watch sent an error ({}); listing again",
            JsonTree.integer(object, "code").orElse(0));
        // 410 Gone (version too old) or anything else the server could not continue from: a
        // fresh list is the only safe restart point.
        return Optional.empty();
      }
      default -> { } // BOOKMARK, and types a newer server may add
    }
    return Optional.of(version);
  }

  private static long left(long deadlineNanos) {
    return deadlineNanos == NO_DEADLINE ? Long.MAX_VALUE : deadlineNanos - System.nanoTime();
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}
