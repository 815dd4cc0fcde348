package dev.fairing4j.deployer.local.internal.settings;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * The podman cluster's configuration, as one immutable value: the local cluster's settings for
 * what both share (state directory, claim directories, GPU and timeout behaviour) plus podman's.
 *
 * @param local state and volume directories, GPU and timeout options
 * @param containersConf the containers.conf for every podman call; empty to write the SDK's own
 * @param podman the podman binary; empty to find it on PATH
 */
public record PodmanSettings(LocalSettings local, Optional<Path> containersConf,
    Optional<Path> podman) {

  /** Checks the parts. */
  public PodmanSettings {
    Objects.requireNonNull(local, "local");
    Objects.requireNonNull(containersConf, "containersConf");
    Objects.requireNonNull(podman, "podman");
  }

  /**
   * The defaults: jobs recorded under the local cluster's state directory in {@code podman/} (a
   * cluster of their own), claims in the same directories as the local cluster's, so a model
   * saved by either is found at the same place. Podman jobs are supervised by the JVM that
   * submits them, whose watchdog removes their containers when it dies.
   */
  public static PodmanSettings defaults() {
    LocalSettings local = LocalSettings.defaults();
    return new PodmanSettings(new LocalSettings(local.stateDir().resolve("podman"),
        local.volumesDir(), local.claims(), Optional.empty(), false, true, false, true,
        local.retention(), false, java.util.Set.of()),
        Optional.empty(), Optional.empty());
  }

  /** A copy with other local settings. */
  public PodmanSettings withLocal(LocalSettings newLocal) {
    return new PodmanSettings(newLocal, containersConf, podman);
  }
}
