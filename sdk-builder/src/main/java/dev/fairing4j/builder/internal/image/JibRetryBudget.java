package dev.fairing4j.builder.internal.image;

import com.google.cloud.tools.jib.api.LogEvent;
import dev.fairing4j.builder.ImageBuildException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Caps Jib's own retries of failed registry calls in one build. Jib announces each retry with a
 * warning ({@code "<url> failed and will be retried"}) before it sleeps; after
 * {@link #MAX_RETRIES} of them the build is cancelled by interrupting Jib's threads, which ends
 * the sleeping retry with the failure it was retrying. Without the cap a registry that stopped
 * mid-push holds a build for about a minute before Jib gives up.
 */
final class JibRetryBudget {
  /** Jib retries allowed per build (its backoff makes them about 2.5 s in all). */
  static final int MAX_RETRIES = 4;

  private final int maxRetries;
  private final ExecutorService executor;
  private final AtomicInteger retries = new AtomicInteger();
  private final AtomicBoolean exhausted = new AtomicBoolean();
  private final AtomicReference<String> lastRetry = new AtomicReference<>("");

  JibRetryBudget(int maxRetries, ExecutorService executor) {
    this.maxRetries = maxRetries;
    this.executor = executor;
  }

  /** Counts Jib's retry warnings; cancels the build when they exceed the budget. */
  void onLog(LogEvent event) {
    String message = event.getMessage();
    if (event.getLevel() != LogEvent.Level.WARN || !message.contains("will be retried")) {
      return;
    }
    lastRetry.set(message);
    if (retries.incrementAndGet() > maxRetries && exhausted.compareAndSet(false, true)) {
      executor.shutdownNow();
    }
  }

  /** Whether the budget ran out (and the build was cancelled because of it). */
  boolean exhausted() {
    return exhausted.get();
  }

  /** The failure to report once the budget ran out: names the registry and what kept failing. */
  ImageBuildException failure(String targetReference, Throwable cause) {
    String registry = targetReference.contains("/")
        ? targetReference.substring(0, targetReference.indexOf('/')) : targetReference;
    // the query of an upload URL is the registry's opaque upload state: noise in a message
    String last = lastRetry.get().replaceAll("\\s*failed and will be retried\\s*$", "")
        .replaceAll("\\?\\S*", "");
    return ImageBuildException.of("push image", registry, "registry " + registry
        + " kept failing during the push of " + targetReference + " (" + maxRetries
        + " retries; last: " + last + ")", "check that the registry at " + registry
        + " runs and is reachable, then run again: blobs already pushed are skipped and no tag"
        + " was written", null, cause);
  }
}
