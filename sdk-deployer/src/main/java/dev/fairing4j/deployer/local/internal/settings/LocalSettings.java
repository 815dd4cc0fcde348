package dev.fairing4j.deployer.local.internal.settings;

import dev.fairing4j.core.internal.UserDirectories;
import dev.fairing4j.deployer.local.internal.settings.Retention;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The local cluster's configuration, as one immutable value.
 *
 * @param stateDir where jobs are recorded, staged and logged
 * @param volumesDir where each claim's directory is created, one per claim name
 * @param claims claim names mapped to chosen directories, overriding {@code volumesDir}
 * @param python the interpreter for python/torchrun commands; empty to choose automatically
 * @param ignoreGpuRequests run replicas that request GPUs this machine lacks
 * @param sandbox run replicas in bubblewrap
 * @param killOnTimeout stop the job when waitForCompletion times out or is interrupted
 * @param tiedToJvm supervise jobs in this JVM, so they end with it, instead of in a process of
 *     their own that outlives it
 * @param retention how many finished jobs are kept, and for how long
 * @param exposeEndpoints model servers listen on every interface instead of loopback only
 * @param namespaces the namespaces the user declared beside {@code default}: a job may go to
 *     one of these, or to one that already holds jobs, as a cluster has only the namespaces
 *     someone created
 */
public record LocalSettings(Path stateDir, Path volumesDir, Map<String, Path> claims,
    Optional<Path> python, boolean ignoreGpuRequests, boolean sandbox, boolean killOnTimeout,
    boolean tiedToJvm, Retention retention, boolean exposeEndpoints,
    Set<String> namespaces) {
  /** The address a model server listens on unless {@link #exposeEndpoints}. */
  public static final String LOOPBACK = "127.0.0.1";
  /** The address a model server listens on with {@link #exposeEndpoints}: every interface. */
  public static final String EVERY_INTERFACE = "0.0.0.0";
  /** The variable fairing4j's model server reads its listening address from. */
  public static final String SERVER_HOST_ENV = "FAIRING4J_SERVER_HOST";

  /** Checks the parts and copies the collections. */
  public LocalSettings {
    Objects.requireNonNull(stateDir, "stateDir");
    Objects.requireNonNull(volumesDir, "volumesDir");
    claims = Map.copyOf(claims);
    Objects.requireNonNull(python, "python");
    Objects.requireNonNull(retention, "retention");
    namespaces = Set.copyOf(new TreeSet<>(namespaces));
  }

  /** The address model servers of this cluster listen on. */
  public String endpointAddress() {
    return exposeEndpoints ? EVERY_INTERFACE : LOOPBACK;
  }

  /** The host directory of claim {@code claimName}. */
  public Path claimDir(String claimName) {
    return claims.getOrDefault(claimName, volumesDir.resolve(claimName));
  }

  /** The defaults: XDG state and data directories, sandboxed, interpreter chosen per job. */
  public static LocalSettings defaults() {
    return new LocalSettings(UserDirectories.state(), UserDirectories.data().resolve("volumes"),
        Map.of(), Optional.empty(), false, true, false, false, Retention.DEFAULT,
        false, Set.of());
  }

  /** With another state directory. */
  public LocalSettings withStateDir(Path dir) {
    return new LocalSettings(dir, volumesDir, claims, python, ignoreGpuRequests, sandbox,
        killOnTimeout, tiedToJvm, retention, exposeEndpoints, namespaces);
  }

  /** With another directory for claims without a mapping. */
  public LocalSettings withVolumesDir(Path dir) {
    return new LocalSettings(stateDir, dir, claims, python, ignoreGpuRequests, sandbox,
        killOnTimeout, tiedToJvm, retention, exposeEndpoints, namespaces);
  }

  /** With other claim mappings. */
  public LocalSettings withClaims(Map<String, Path> newClaims) {
    return new LocalSettings(stateDir, volumesDir, newClaims, python, ignoreGpuRequests, sandbox,
        killOnTimeout, tiedToJvm, retention, exposeEndpoints, namespaces);
  }

  /** With another interpreter choice. */
  public LocalSettings withPython(Optional<Path> interpreter) {
    return new LocalSettings(stateDir, volumesDir, claims, interpreter, ignoreGpuRequests,
        sandbox, killOnTimeout, tiedToJvm, retention, exposeEndpoints, namespaces);
  }

  /** With GPU requests ignored or not. */
  public LocalSettings withIgnoreGpuRequests(boolean ignore) {
    return new LocalSettings(stateDir, volumesDir, claims, python, ignore, sandbox,
        killOnTimeout, tiedToJvm, retention, exposeEndpoints, namespaces);
  }

  /** With or without the sandbox. */
  public LocalSettings withSandbox(boolean isolate) {
    return new LocalSettings(stateDir, volumesDir, claims, python, ignoreGpuRequests, isolate,
        killOnTimeout, tiedToJvm, retention, exposeEndpoints, namespaces);
  }

  /** With kill-on-timeout on or off. */
  public LocalSettings withKillOnTimeout(boolean kill) {
    return new LocalSettings(stateDir, volumesDir, claims, python, ignoreGpuRequests, sandbox,
        kill, tiedToJvm, retention, exposeEndpoints, namespaces);
  }

  /** Tied to this JVM or not. */
  public LocalSettings withTiedToJvm(boolean tied) {
    return new LocalSettings(stateDir, volumesDir, claims, python, ignoreGpuRequests, sandbox,
        killOnTimeout, tied, retention, exposeEndpoints, namespaces);
  }

  /** With endpoints exposed on every interface, or on loopback only. */
  public LocalSettings withExposeEndpoints(boolean expose) {
    return new LocalSettings(stateDir, volumesDir, claims, python, ignoreGpuRequests, sandbox,
        killOnTimeout, tiedToJvm, retention, expose, namespaces);
  }

  /** With other declared namespaces. */
  public LocalSettings withNamespaces(Set<String> declared) {
    return new LocalSettings(stateDir, volumesDir, claims, python, ignoreGpuRequests, sandbox,
        killOnTimeout, tiedToJvm, retention, exposeEndpoints, declared);
  }

  /** With another rule for keeping finished jobs. */
  public LocalSettings withRetention(Retention keep) {
    return new LocalSettings(stateDir, volumesDir, claims, python, ignoreGpuRequests, sandbox,
        killOnTimeout, tiedToJvm, keep, exposeEndpoints, namespaces);
  }
}
