package dev.fairing4j.deployer.local.internal.settings;

import java.time.Duration;

/**
 * How many finished jobs stay, and for how long: a setting of the local cluster, applied when
 * finished jobs are pruned.
 *
 * @param keep the newest finished jobs kept (all namespaces together)
 * @param maxAge how long a finished job is kept at most
 */
public record Retention(int keep, Duration maxAge) {
  /** 100 finished jobs, none older than 30 days: a laptop's worth of history. */
  public static final Retention DEFAULT = new Retention(100, Duration.ofDays(30));
}
