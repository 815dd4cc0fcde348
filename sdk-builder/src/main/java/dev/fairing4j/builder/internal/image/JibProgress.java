package dev.fairing4j.builder.internal.image;

import com.google.cloud.tools.jib.api.LogEvent;
import com.google.cloud.tools.jib.event.events.ProgressEvent;
import com.google.cloud.tools.jib.event.events.TimerEvent;
import com.google.cloud.tools.jib.event.progress.Allocation;
import dev.fairing4j.core.ProgressEvent.BytesTransferred;
import dev.fairing4j.core.ProgressEvent.StepFinished;
import dev.fairing4j.core.ProgressEvent.StepStarted;
import dev.fairing4j.core.ProgressListener;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Translates Jib's events into fairing4j's: the Jib steps a user recognises become step events,
 * blob pushes become {@link BytesTransferred}, and Jib's log lines go to SLF4J (logger
 * {@code dev.fairing4j.builder.jib}). It also works out what was really uploaded, so a build can
 * say "3 blobs, 2081 bytes" rather than counting blobs the registry already had or mounted.
 */
public final class JibProgress {
  private static final Logger LOG = LoggerFactory.getLogger("dev.fairing4j.builder.jib");
  /** Every Jib step with its time, at debug level: where a slow build spends it. */
  private static final Logger TIMING = LoggerFactory.getLogger("dev.fairing4j.builder.jib.timing");
  private static final Pattern DIGEST = Pattern.compile("sha256:[0-9a-f]{64}");
  // Jib times dozens of nested steps; these are the ones a user recognises.
  private static final Pattern USER_STEPS = Pattern.compile("Building and pushing image"
      + "|Building image to tar file|Pulling base image manifest|Building \\w+ layer"
      + "|Pulling base image layer .*|Pushing BLOB .*|Pushing container configuration"
      + "|Pushing manifest.*");

  private final ProgressListener listener;
  private final String what;
  private final boolean quietInsecureFallback;
  private final Set<String> skipped = ConcurrentHashMap.newKeySet();
  private final Set<String> uploaded = ConcurrentHashMap.newKeySet();
  private final Map<String, Long> sizes = new ConcurrentHashMap<>();
  private final AtomicLong progressed = new AtomicLong();
  private final AtomicLong total = new AtomicLong();

  /**
   * Reports to {@code listener}; {@code what} names the transfer, e.g. {@code push repo:tag}.
   *
   * @param quietInsecureFallback true when plain HTTP is expected (loopback registries), so
   *     Jib's warnings about falling back to it are logged at debug level only
   */
  public JibProgress(ProgressListener listener, String what, boolean quietInsecureFallback) {
    this.listener = listener;
    this.what = what;
    this.quietInsecureFallback = quietInsecureFallback;
  }

  /** Handles one of Jib's timer events. */
  public void onTimer(TimerEvent event) {
    String description = event.getDescription();
    if (event.getState() == TimerEvent.State.FINISHED && TIMING.isDebugEnabled()) {
      TIMING.debug("{} ms: {}", event.getElapsed().toMillis(), description);
    }
    if (description.startsWith("pushBlob PATCH") || description.startsWith("pushBlob PUT")) {
      // Only a real upload writes content; a cross-repository mount ends with its POST.
      digestIn(description).ifPresent(uploaded::add);
    }
    if (!USER_STEPS.matcher(description).matches()) {
      return;
    }
    String step = "jib: " + description;
    switch (event.getState()) {
      case START -> listener.onEvent(new StepStarted(step));
      case FINISHED -> listener.onEvent(new StepFinished(step, event.getElapsed()));
      default -> { }
    }
  }

  /**
   * Handles one of Jib's progress events: push progress over the blobs Jib handles. Jib completes
   * the allocation of a blob the registry already had with its full size; such blobs, known from
   * Jib's "Skipping push" log line that comes first, are left out.
   */
  public void onProgress(ProgressEvent event) {
    Allocation allocation = event.getAllocation();
    String description = allocation.getDescription();
    if (!description.startsWith("pushing blob")) {
      return;
    }
    String key = digestIn(description).orElse(description);
    if (skipped.contains(key)) {
      return;
    }
    if (sizes.putIfAbsent(key, allocation.getAllocationUnits()) == null) {
      total.addAndGet(allocation.getAllocationUnits());
    }
    listener.onEvent(new BytesTransferred(what, progressed.addAndGet(event.getUnits()),
        total.get()));
  }

  /** Passes Jib's log lines to SLF4J. */
  public void onLog(LogEvent event) {
    String message = event.getMessage();
    if (message.startsWith("Skipping push; BLOB already exists")) {
      digestIn(message).ifPresent(skipped::add);
    }
    switch (event.getLevel()) {
      case ERROR -> LOG.error(message);
      case WARN -> {
        if (quietInsecureFallback && (message.contains("HTTP")
            || message.contains("TLS verification"))) {
          LOG.debug(message);
        } else {
          LOG.warn(message);
        }
      }
      case LIFECYCLE, INFO -> LOG.debug(message);
      default -> LOG.trace(message);
    }
  }

  /**
   * Bytes of blob content really uploaded: blobs the registry had, or mounted from another
   * repository, do not count.
   */
  public long bytesPushed() {
    return uploaded.stream().mapToLong(digest -> sizes.getOrDefault(digest, 0L)).sum();
  }

  /** How many blobs (layers and config) were really uploaded. */
  public int blobsPushed() {
    return uploaded.size();
  }

  private static java.util.Optional<String> digestIn(String text) {
    Matcher digest = DIGEST.matcher(text);
    return digest.find() ? java.util.Optional.of(digest.group()) : java.util.Optional.empty();
  }
}
