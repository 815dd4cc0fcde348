package dev.fairing4j.builder.internal.preprocess;

import dev.fairing4j.core.internal.JvmWide;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jgit.util.FS;

/**
 * One-time JGit settings. JGit measures the timestamp resolution of each file system the first
 * time it opens a repository on it (about 3 s here) and stores the result in
 * {@code ~/.config/jgit/config}; with a read-only or throw-away home that would happen on every
 * build. fairing4j fetches into in-memory repositories, so only a {@code file://} source touches
 * the disk, and with background measurement JGit uses a safe fallback resolution at once instead
 * of waiting.
 */
public final class JGitSetup {
  @JvmWide(why = "JGit's settings are JVM-wide themselves",
      bound = "one flag")
  private static final AtomicBoolean DONE = new AtomicBoolean();

  private JGitSetup() {}

  /** Applies the settings once per JVM. */
  public static void ensure() {
    if (DONE.compareAndSet(false, true)) {
      FS.FileStoreAttributes.setBackground(true);
    }
  }
}
