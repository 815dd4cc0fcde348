package dev.fairing4j.builder.internal.image;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.cloud.tools.jib.api.JibContainer;
import dev.fairing4j.builder.internal.Json;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.cache.internal.CacheUse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds one image from one context: checks the configuration, pins the base to a digest, asks
 * the target whether it already holds this exact image (then nothing is built or uploaded), and
 * otherwise lets Jib build and push, translating its failures.
 */
public final class ImageBuildRun {
  private static final Logger LOG = LoggerFactory.getLogger(ImageBuildRun.class);

  private final BuildSettings settings;
  private final Map<String, String> environment;

  /** A run with {@code settings}, reading credential variables from {@code environment}. */
  public ImageBuildRun(BuildSettings settings, Map<String, String> environment) {
    this.settings = settings;
    this.environment = environment;
  }

  /** The reference a build of {@code context} gets: the target with the content tag. */
  public ImageRef planned(BuildContext context) {
    ImageRef name = settings.repository().orElseGet(() -> ImageRef.parse(
        BuildSettings.LOCAL_IMAGE_NAME));
    return name.withTag(context.contentTag());
  }

  /** Checks the configuration; nothing is contacted. */
  public void validate(BuildContext context) {
    if (settings.repository().isEmpty() && settings.pushes()) {
      throw InvalidInputException.of("pushTo", "no target is set",
          "add .pushTo(\"registry.example.com/team/app\") or .toTar(Path.of(\"image.tar\"))");
    }
    if (settings.base() instanceof BaseImage.FromDockerTar tar) {
      DockerTars.check("baseImage", tar.tar());
    }
    for (Path pem : settings.trustedCertificates()) {
      if (Files.isDirectory(pem) || !Files.isReadable(pem)) {
        throw InvalidInputException.of("trustedCertificates", "'" + pem + "' "
            + (Files.isDirectory(pem) ? "is a directory" : "cannot be read"),
            "give the path of the registry's CA certificate file (PEM)");
      }
    }
    settings.tar().ifPresent(ImageBuildRun::checkTarTarget);
    for (Path directory : List.of(settings.baseLayerCacheDirectory(),
        settings.applicationLayerCacheDirectory(), settings.stagingDirectory())) {
      checkDirectory("baseLayerCache", directory);
    }
    if (context.files().isEmpty() && context.command().isEmpty() && context.args().isEmpty()) {
      throw InvalidInputException.of("context", "has no files and no command",
          "give the preprocessor a script, e.g. Preprocessors.python(Path.of(\"train.py\"))");
    }
  }

  /** Where the tar goes must be a file path whose existing parts are directories. */
  private static void checkTarTarget(Path tar) {
    if (Files.isDirectory(tar)) {
      throw InvalidInputException.of("toTar", "'" + tar + "' is a directory",
          "give the path of the tar file to write, e.g. " + tar.resolve("image.tar"));
    }
    checkDirectory("toTar", tar.getParent());
  }

  /**
   * {@code directory}, or its nearest existing ancestor, must be a directory: Jib creates what is
   * missing, and fails deep inside the build on a regular file in the way.
   */
  private static void checkDirectory(String field, Path directory) {
    for (Path at = directory; at != null; at = at.getParent()) {
      if (Files.isDirectory(at)) {
        return;
      }
      if (Files.exists(at)) {
        throw InvalidInputException.of(field, "'" + at + "' is not a directory" + (at.equals(
            directory) ? "" : " (on the way to " + directory + ")"), "give a path whose"
            + " existing parts are directories");
      }
    }
  }

  /**
   * Builds (or finds) the image and returns it pinned to its digest. The context's files are
   * read once, into a staged snapshot ({@link ContentStaging}), before anything else: the tag,
   * the fingerprint and the layers all come from that snapshot, so the image holds exactly the
   * content its tag was derived from, even when a file changes during the build. The tag is
   * therefore that of the files as they were when the build started, which may differ from an
   * earlier {@link #planned} if they changed since.
   */
  public ImageRef build(BuildContext requested, ProgressListener progress) {
    validate(requested);
    ImageRef image;
    // Staging, layers and templates live in the caches: no prune may take them mid-build.
    try (CacheUse.AutoCloseableHold held = CacheUse.hold(settings.stagingDirectory())) {
      image = buildHoldingCaches(requested, progress);
    }
    CacheUse.pruneIfDue(settings.stagingDirectory());
    return image;
  }

  private ImageRef buildHoldingCaches(BuildContext requested, ProgressListener progress) {
    HttpLogGuard.apply();
    if (settings.dockerDaemon()) {
      DockerEngine.requireRunning();
    }
    BuildContext context = new ContentStaging(settings.stagingDirectory()).snapshot(requested);
    // Made when HTTPS is first used: the JVM's default context reads the trust store, hundreds
    // of milliseconds in a new JVM that a loopback registry over plain HTTP never needs. A
    // context with the user's CAs is installed at once (its errors are bad input).
    Supplier<SSLContext> ssl = settings.trustedCertificates().isEmpty()
        ? memoized(TrustedCertificates::defaultContext)
        : constant(TrustedCertificates.install(settings.trustedCertificates()));
    boolean insecure = settings.insecureAllowed();
    if (settings.allowInsecure()) {
      LOG.warn("allowInsecure(): plain HTTP and unverified TLS are allowed for the target {} and"
          + " the base {}; use it only for throw-away registries",
          settings.repository().map(ImageRef::registry).orElse("(local)"),
          settings.base().describe());
    }
    ImageRef planned = planned(context);
    List<String> secrets = new ArrayList<>();

    Optional<TargetReads> ahead = startTargetReads(planned, insecure, ssl,
        context);
    try {
      return build(context, progress, ssl, insecure, planned, secrets, ahead);
    } finally {
      ahead.ifPresent(reads -> reads.uploads().cancelUnused());
    }
  }

  /**
   * Work started before the base is resolved, so that it overlaps with that round trip: the read
   * of the content tag (is the image there already?), when it is free in an edit loop the
   * opening of the uploads a changed build will need ({@link DirectPush.OpenUploads}), and the
   * building of the application layers ({@link DirectPush#buildLayers}).
   */
  private record TargetReads(RegistryClient client,
      CompletableFuture<Optional<RegistryClient.Manifest>> tag, DirectPush.OpenUploads uploads,
      CompletableFuture<List<DirectPush.BuiltLayer>> layers) {}

  private Optional<TargetReads> startTargetReads(ImageRef planned, boolean insecure,
      Supplier<SSLContext> ssl, BuildContext context) {
    if (!settings.pushes() || !(settings.base() instanceof BaseImage.FromRegistry)) {
      return Optional.empty();
    }
    Optional<RegistryCredential> credential;
    try {
      credential = settings.targetCredentials().resolve(planned.reference(), environment);
    } catch (RuntimeException e) {
      return Optional.empty();  // reported where it always was: after the base is resolved
    }
    RegistryClient client = new RegistryClient(planned.registry(), credential, insecure, ssl);
    CompletableFuture<Optional<RegistryClient.Manifest>> tag = CompletableFuture.supplyAsync(
        () -> {
          try {
            return client.manifest(planned.repository(), planned.tag().orElseThrow());
          } catch (IOException e) {
            throw new CompletionException(e);
          }
        }, BuildParts.current().executor);
    return Optional.of(new TargetReads(client, tag, DirectPush.OpenUploads.afterFreeTag(client,
        planned, tag), DirectPush.buildLayers(settings, context)));
  }

  private ImageRef build(BuildContext context, ProgressListener progress, Supplier<SSLContext> ssl,
      boolean insecure, ImageRef planned, List<String> secrets, Optional<TargetReads> ahead) {
    Base base = resolveBase(ssl, insecure, secrets);
    String fingerprint = BuildFingerprint.of(context, base.identity(), settings);

    Optional<RegistryCredential> targetCredential = Optional.empty();
    if (settings.pushes()) {
      targetCredential = settings.targetCredentials().resolve(planned.reference(), environment);
      targetCredential.ifPresent(c -> secrets.add(c.password().reveal()));
      if (base.pinned()) {
        Optional<ImageRef> existing = findExisting(planned, fingerprint, targetCredential,
            insecure, ssl, secrets, ahead.map(TargetReads::tag));
        if (existing.isPresent()) {
          progress.onEvent(new ProgressEvent.Note(existing.get().reference()
              + " is up to date: nothing built, 0 bytes uploaded"));
          return existing.get();
        }
      }
    }

    Optional<ImageTemplates.Template> template = Optional.empty();
    String templateKey = ImageTemplates.key(context, base.identity(), settings);
    RegistryClient target = null;
    if (settings.pushes() && base.pinned() && base.image().isPresent()) {
      target = new RegistryClient(planned.registry(), targetCredential, insecure, ssl);
      template = ImageTemplates.find(settings.templateDirectory(), templateKey);
      if (template.isPresent()) {
        Optional<DirectPush.Result> pushed;
        try {
          pushed = DirectPush.push(settings, context, template.get(), base.image().get(),
              planned, fingerprint, target, ahead.isPresent() ? ahead.get().uploads()
                  : DirectPush.OpenUploads.none(target, planned), ahead.isPresent()
                  ? ahead.get().layers() : DirectPush.buildLayers(settings, context), progress);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw FairingException.of("build image", planned.reference(), "interrupted", null, e);
        }
        if (pushed.isPresent()) {
          progress.onEvent(new ProgressEvent.Note("pushed " + pushed.get().image().reference()
              + ": " + pushed.get().blobsUploaded() + " blobs, "
              + pushed.get().bytesUploaded() + " bytes uploaded"));
          return pushed.get().image();
        }
      } else {
        // Without this, Jib downloads every base layer the new repository lacks before it
        // mounts it; mounted first, Jib finds them in place and moves nothing.
        DirectPush.mountBase(target, planned, base.image().get(), base.manifest().get(),
            progress);
      }
    }

    // Jib builds the same layers into the same cache: let the build started ahead finish first
    ahead.ifPresent(reads -> reads.layers().handle((layers, failure) -> null).join());
    JibProgress jibProgress = new JibProgress(progress, settings.tar().isPresent()
        ? "write " + settings.tar().get().getFileName()
        : settings.dockerDaemon() ? "load into Docker" : "push " + planned.reference(),
        insecure && !settings.allowInsecure());
    String baseRegistry = settings.base() instanceof BaseImage.FromRegistry registryBase
        ? registryBase.image().registry() : "";
    try {
      JibContainer container = runJib(context, base, planned, fingerprint, jibProgress,
          targetCredential, progress, secrets);
      if (settings.dockerDaemon()) {
        // An engine's image has an ID but no registry digest: the tag is the reference.
        progress.onEvent(new ProgressEvent.Note("loaded " + planned + " into Docker (image id "
            + container.getImageId() + ")"));
        return planned;
      }
      ImageRef built = planned.withDigest(container.getDigest().toString());
      if (target != null) {
        rememberTemplate(target, built, templateKey, template.isEmpty(), context);
      }
      progress.onEvent(new ProgressEvent.Note((settings.tar().isPresent()
          ? "wrote " + settings.tar().get() + " (" + built + ")"
          : "pushed " + built.reference()) + ": " + jibProgress.blobsPushed() + " blobs, "
          + jibProgress.bytesPushed() + " bytes uploaded"));
      return built;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw FairingException.of("build image", planned.reference(), "interrupted", null, e);
    } catch (FairingException e) {
      throw e;
    } catch (Exception e) {
      Throwable cause = e instanceof ExecutionException && e.getCause() != null
          ? e.getCause() : e;
      throw JibFailures.map(cause, settings.tar().map(Path::toString)
              .orElse(settings.dockerDaemon() ? "docker" : planned.registry()), baseRegistry,
          settings.base().describe(), secrets);
    }
  }

  /**
   * One Jib build and push, repeated with bounded backoff ({@link RegistryRetry}) when it fails
   * for a transient reason: Jib itself retries only some connection failures, and not a 5xx.
   * Repeating is safe because a push is idempotent by digest (Jib skips blobs the registry holds
   * and writes the manifest last), and bounded so that a registry that stays down fails the
   * build within seconds. Tars and the Docker daemon are local: no retry.
   */
  private JibContainer runJib(BuildContext context, Base base, ImageRef planned,
      String fingerprint, JibProgress jibProgress, Optional<RegistryCredential> targetCredential,
      ProgressListener progress, List<String> secrets) throws Exception {
    int attempts = settings.tar().isPresent() || settings.dockerDaemon() ? 1
        : RegistryRetry.ATTEMPTS;
    for (int attempt = 1; ; attempt++) {
      try {
        return JibBuild.run(settings, context, base.reference(),
            planned.reference(), Map.of(BuildFingerprint.LABEL, fingerprint), jibProgress,
            base.credential(), targetCredential);
      } catch (InterruptedException | FairingException e) {
        // a FairingException is final: Jib's own retries already ran out (JibRetryBudget)
        throw e;
      } catch (Exception e) {
        if (attempt >= attempts || !RegistryRetry.transientFailure(e)) {
          throw e;
        }
        Duration pause = RegistryRetry.delay(attempt);
        LOG.warn("pushing {} failed ({}); retry {} of {} in {} ms", planned.reference(),
            JibFailures.mask(rootMessage(e), secrets), attempt, attempts - 1,
            pause.toMillis());
        progress.onEvent(new ProgressEvent.Note("registry " + planned.registry()
            + " failed for a moment; retry " + attempt + " of " + (attempts - 1)));
        if (!RegistryRetry.pause(attempt)) {
          throw new InterruptedException("interrupted while retrying the push");
        }
      }
    }
  }

  /**
   * Keeps what Jib just pushed as the template of later builds with the same key (when there is
   * none yet) and notes that the repository now holds its blobs. Two small reads, once per key.
   */
  private void rememberTemplate(RegistryClient target, ImageRef built, String templateKey,
      boolean newTemplate, BuildContext context) {
    try {
      Optional<RegistryClient.Manifest> manifest = target.manifest(built.repository(),
          built.digest().orElseThrow());
      if (manifest.isEmpty()) {
        return;
      }
      DirectPush.rememberBlobs(built, manifest.get().body());
      if (newTemplate) {
        String configDigest = Json.MAPPER.readTree(manifest.get().body()).path("config")
            .path("digest").asText();
        byte[] config = target.blob(built.repository(), configDigest);
        ImageTemplates.remember(settings.templateDirectory(), templateKey,
            new ImageTemplates.Template(manifest.get().mediaType(), manifest.get().body(), config,
                JibBuild.layers(context).size()));
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("cannot keep {} as a template ({})", built, e.toString());
    }
  }

  private static String rootMessage(Throwable failure) {
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = root.getMessage();
    return root.getClass().getSimpleName() + (message == null ? ""
        : ": " + message.lines().findFirst().orElse(""));
  }

  /**
   * The base as Jib should pull it, and what identifies it in the fingerprint; for a base in a
   * registry, also the image and the manifest it was resolved to.
   */
  private record Base(String reference, String identity, boolean pinned,
      Optional<RegistryCredential> credential, Optional<ImageRef> image,
      Optional<RegistryClient.Manifest> manifest) {
    Base(String reference, String identity, boolean pinned,
        Optional<RegistryCredential> credential) {
      this(reference, identity, pinned, credential, Optional.empty(), Optional.empty());
    }
  }

  private Base resolveBase(Supplier<SSLContext> ssl, boolean insecure, List<String> secrets) {
    if (settings.base() instanceof BaseImage.Scratch) {
      return new Base("scratch", "scratch", true, Optional.empty());
    }
    if (settings.base() instanceof BaseImage.FromDockerTar tar) {
      byte[] manifest = DockerTars.check("baseImage", tar.tar());
      return new Base(tar.tar().toString(), "tar:" + RegistryClient.sha256(manifest), true,
          Optional.empty());
    }
    ImageRef image = ((BaseImage.FromRegistry) settings.base()).image();
    Optional<RegistryCredential> credential =
        settings.effectiveBaseCredentials().resolve(image.reference(), environment);
    credential.ifPresent(c -> secrets.add(c.password().reveal()));
    // Asked even for a digest (which cannot move): Jib starts pushing application layers while it
    // pulls the base, so a missing base must be caught here to fail before any upload.
    RegistryClient client = new RegistryClient(image.registry(), credential, insecure, ssl);
    Optional<RegistryClient.Manifest> manifest;
    try {
      manifest = client.manifest(image.repository(),
          image.digest().orElseGet(() -> image.tag().orElse("latest")));
    } catch (SSLException e) {
      // Jib trusts the same default context and falls back to HTTP on the same terms: it would
      // fail too, only later and after retries that hide the reason.
      throw JibFailures.tls(image.registry(), e, secrets);
    } catch (IOException e) {
      LOG.debug("cannot resolve base {} ({}); Jib will pull it as given", image, e.toString());
      return new Base(image.reference(), image.digest().orElse(image.reference()),
          image.digest().isPresent(), credential);
    }
    if (manifest.isEmpty()) {
      throw JibFailures.baseNotFound(image.registry(), image.toString(), "404 MANIFEST_UNKNOWN");
    }
    rejectIndexWithArtifacts(image, manifest.get(), secrets);
    // Pin Jib to what was just resolved, so the fingerprint describes exactly what gets built.
    return new Base(image.name() + "@" + manifest.get().digest(), manifest.get().digest(), true,
        credential, Optional.of(image), manifest);
  }

  private static void rejectIndexWithArtifacts(ImageRef image, RegistryClient.Manifest manifest,
      List<String> secrets) {
    if (!manifest.mediaType().contains("index") && !manifest.mediaType().contains("list")) {
      return;
    }
    JsonNode index;
    try {
      index = Json.MAPPER.readTree(manifest.body());
    } catch (IOException e) {
      return;  // Jib will complain in its own words
    }
    boolean artifacts = false;
    String amd64 = null;
    for (JsonNode entry : index.path("manifests")) {
      artifacts |= entry.has("artifactType") || entry.has("data");
      JsonNode platform = entry.path("platform");
      if (amd64 == null && "linux".equals(platform.path("os").asText())
          && "amd64".equals(platform.path("architecture").asText())) {
        amd64 = entry.path("digest").asText(null);
      }
    }
    if (artifacts) {
      String suggestion = amd64 == null ? "" : "suggested: " + image.name() + "@" + amd64;
      throw JibFailures.indexWithArtifacts(image.registry(), image.toString(), suggestion,
          secrets);
    }
  }

  /** The target's image for {@code planned}, when it holds exactly what this build would make. */
  private Optional<ImageRef> findExisting(ImageRef planned, String fingerprint,
      Optional<RegistryCredential> credential, boolean insecure, Supplier<SSLContext> ssl,
      List<String> secrets,
      Optional<CompletableFuture<Optional<RegistryClient.Manifest>>> prefetched) {
    RegistryClient client = new RegistryClient(planned.registry(), credential, insecure, ssl);
    try {
      Optional<RegistryClient.Manifest> manifest = prefetched.isPresent()
          ? joined(prefetched.get())
          : client.manifest(planned.repository(), planned.tag().orElseThrow());
      if (manifest.isEmpty()) {
        return Optional.empty();
      }
      JsonNode parsed = Json.MAPPER.readTree(manifest.get().body());
      String configDigest = parsed.path("config").path("digest").asText("");
      if (configDigest.isEmpty()) {
        return Optional.empty();
      }
      JsonNode config = Json.MAPPER.readTree(client.blob(planned.repository(), configDigest));
      String found = config.path("config").path("Labels").path(BuildFingerprint.LABEL).asText("");
      if (!found.equals(fingerprint)) {
        LOG.debug("{} exists but was built from other inputs; rebuilding", planned);
        return Optional.empty();
      }
      for (String tag : settings.tags()) {
        Optional<RegistryClient.Manifest> tagged = client.manifest(planned.repository(), tag);
        if (tagged.isEmpty() || !tagged.get().digest().equals(manifest.get().digest())) {
          return Optional.empty();  // Jib re-tags; blobs and manifest are already there
        }
      }
      return Optional.of(planned.withDigest(manifest.get().digest()));
    } catch (SSLException e) {
      throw JibFailures.tls(planned.registry(), e, secrets);  // as for the base: Jib would too
    } catch (IOException e) {
      LOG.debug("cannot check {} before building ({}); building", planned, e.toString());
      return Optional.empty();
    }
  }

  private static <T> Supplier<T> constant(T value) {
    return () -> value;
  }

  private static <T> Supplier<T> memoized(Supplier<T> make) {
    return new Supplier<>() {
      private T value;

      @Override
      public synchronized T get() {
        if (value == null) {
          value = make.get();
        }
        return value;
      }
    };
  }

  /** The result of a read started ahead, failing as the read itself would have. */
  private static <T> T joined(CompletableFuture<T> read) throws IOException {
    try {
      return read.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      if (e.getCause() instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw e;
    }
  }
}
