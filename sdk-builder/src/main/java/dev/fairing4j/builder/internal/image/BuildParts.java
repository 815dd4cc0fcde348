package dev.fairing4j.builder.internal.image;

import dev.fairing4j.core.internal.BoundedCache;
import dev.fairing4j.core.internal.Owner;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * What the builds of one {@link dev.fairing4j.core.FairingRuntime} share: the threads of pushes
 * and of the reads started ahead of them, the blobs known to be in each repository, the scheme
 * each registry speaks, the registry tokens, and the image templates read lately. Made on a
 * runtime's first build; {@link #close()} ends the threads and forgets the rest.
 */
final class BuildParts implements AutoCloseable {
  /**
   * Blobs known to be in a repository ({@code registry/repository} -> digests). Each edit adds a
   * code layer, so a repository's set keeps the newest {@link DirectPush#KNOWN_BLOBS} digests: a
   * forgotten one costs a HEAD or an upload, never a wrong image. 64 repositories.
   */
  final BoundedCache<String, Set<String>> knownBlobs = BoundedCache.ofSize(64);
  /** Which scheme each registry speaks: finding out costs a failed handshake. 256 registries. */
  final BoundedCache<RegistryClient.SchemeKey, String> schemes = BoundedCache.ofSize(256);
  /**
   * Authorization headers by registry, user, password hash and scope: an edit loop's builds
   * would otherwise each start with a 401 and a token request per scope. One that expired earns
   * a 401 and is replaced then; none is kept past 30 minutes, so a token does not sit in the
   * heap for the life of a service.
   */
  final BoundedCache<String, String> authorizations =
      BoundedCache.ofSizeAndAge(256, Duration.ofMinutes(30));
  /** The template files read or written lately: a repeated build reads none (the edit loop). */
  final BoundedCache<Path, ImageTemplates.Template> templates = BoundedCache.ofSize(64);
  /**
   * Blocking I/O of pushes and of the reads a build starts ahead of them, which outlive the call
   * that started them; an idle thread ends after 60 s (a cached pool).
   */
  final ExecutorService executor;

  private BuildParts(Owner owner) {
    executor = Executors.newCachedThreadPool(runnable -> owner.thread("fairing4j-push", runnable));
  }

  /** The parts of the runtime the calling thread builds for. */
  static BuildParts current() {
    Owner owner = Owner.current();
    return owner.part(BuildParts.class, () -> new BuildParts(owner));
  }

  @Override
  public void close() {
    executor.shutdownNow();
    knownBlobs.clear();
    schemes.clear();
    authorizations.clear();
    templates.clear();
  }

  @Override
  public String toString() {
    return "the builds' threads and memory";
  }
}
