package dev.fairing4j.core.internal;

import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shields the work from a listener that throws: a progress display must never break a build or a
 * training run. The first failure is logged, later ones are dropped silently.
 */
public final class GuardedListener implements ProgressListener {
  private static final Logger LOG = LoggerFactory.getLogger(GuardedListener.class);

  private final ProgressListener delegate;
  private final AtomicBoolean warned = new AtomicBoolean();

  private GuardedListener(ProgressListener delegate) {
    this.delegate = delegate;
  }

  /** Wraps {@code listener} unless it is already guarded. */
  public static ProgressListener guard(ProgressListener listener) {
    return listener instanceof GuardedListener ? listener : new GuardedListener(listener);
  }

  /** True for a listener that shows nothing ({@link ProgressListener#NONE}, guarded or not). */
  public static boolean isSilent(ProgressListener listener) {
    return listener == null || listener == ProgressListener.NONE
        || listener instanceof GuardedListener guarded && guarded.delegate == ProgressListener.NONE;
  }

  @Override
  public void onEvent(ProgressEvent event) {
    try {
      delegate.onEvent(event);
    } catch (RuntimeException e) {
      if (warned.compareAndSet(false, true)) {
        LOG.warn("progress listener {} threw; further errors from it are ignored", delegate, e);
      }
    }
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}
