package dev.fairing4j.builder.internal.image;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.cloud.tools.jib.api.buildplan.FileEntriesLayer;
import com.google.cloud.tools.jib.api.buildplan.FileEntry;
import com.google.cloud.tools.jib.cache.Cache;
import com.google.cloud.tools.jib.cache.CachedLayer;
import com.google.cloud.tools.jib.image.ReproducibleLayerBuilder;
import com.google.common.collect.ImmutableList;
import dev.fairing4j.builder.internal.Json;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The edit loop's push: an image that differs from one Jib pushed before ({@link ImageTemplates})
 * only in its application layers is assembled here, field for field as Jib would write it, and
 * pushed over the shared keep-alive connections of {@link RegistryClient}, with the blobs in
 * parallel and no step that a one-line change does not need.
 *
 * <p>Why not Jib for this too: a Jib push of a small change costs about ten sequential requests,
 * each on a new connection ({@code FailoverHttpClient} makes a transport per request), after a
 * TLS attempt on a plain-HTTP registry, with a HEAD and a three-request upload per blob. Here it
 * is, after the two reads every build makes: one POST and one PUT per new blob (code layer and
 * configuration side by side), then the manifest. Layers still come from Jib's own
 * {@code ReproducibleLayerBuilder} and layer cache, and the JSON from Jib's own output, so the
 * digest is the one Jib would push (a test builds the same inputs both ways and compares).
 *
 * <p>Anything unexpected (a blob the registry lost, a base layer it cannot mount, an answer this
 * client does not know) makes {@link #push} return empty, and the caller builds with Jib, which
 * retries, reports failures in its own words and writes a fresh template.
 */
final class DirectPush {
  private static final Logger LOG = LoggerFactory.getLogger(DirectPush.class);
  /** How many digests a repository's known set keeps (see {@link BuildParts#knownBlobs}). */
  static final int KNOWN_BLOBS = 1024;
  /**
   * Blobs up to this size are uploaded without asking first whether the registry has them: the
   * question costs a round trip, the answer is almost always no (a changed layer is new), and a
   * repeated upload of a few kilobytes costs less than the round trip.
   */
  private static final long ASK_FIRST_BYTES = 256 * 1024;
  /** The largest layer held in memory for an upload; a larger new layer goes through Jib. */
  private static final long MAX_LAYER_BYTES = 64L * 1024 * 1024;

  private DirectPush() {}

  /** What a direct push did. */
  record Result(ImageRef image, int blobsUploaded, long bytesUploaded) {}

  /** The layers and JSON of one image, ready to push. */
  private record Assembled(List<Blob> baseLayers, List<Blob> newBlobs, String mediaType,
      byte[] manifest, String digest) {}

  /** One blob: its digest and size, and its content when this push may upload it. */
  private record Blob(String digest, long size, byte[] content) {}

  /**
   * Uploads opened ahead, as soon as the target's content tag turns out to be free, while the
   * build still resolves the base and builds its layers: in an edit loop a changed build needs
   * two (code layer and configuration), and opening one costs the registry a round trip (and a
   * write) that then overlaps with that work. An unchanged build (the tag is there) opens none:
   * it stays read-only. Those not used are cancelled.
   */
  static final class OpenUploads {
    private final RegistryClient client;
    private final String repository;
    private final List<CompletableFuture<String>> opened = new ArrayList<>();
    private int taken;

    private OpenUploads(RegistryClient client, String repository) {
      this.client = client;
      this.repository = repository;
    }

    /** No uploads opened ahead: {@link #next} opens each when it is needed. */
    static OpenUploads none(RegistryClient client, ImageRef planned) {
      return new OpenUploads(client, planned.repository());
    }

    /**
     * Opens two uploads into {@code planned}'s repository once {@code tag} (the read of its
     * content tag) finds nothing there, when this JVM pushed to that repository before (the
     * edit loop).
     */
    static OpenUploads afterFreeTag(RegistryClient client, ImageRef planned,
        CompletableFuture<Optional<RegistryClient.Manifest>> tag) {
      OpenUploads uploads = new OpenUploads(client, planned.repository());
      Set<String> known = BuildParts.current().knownBlobs.get(repositoryKey(planned))
          .orElse(Set.of());
      if (!known.isEmpty()) {
        for (int i = 0; i < 2; i++) {
          uploads.opened.add(tag.thenApplyAsync(manifest -> {
            if (manifest.isPresent()) {
              throw new CompletionException(new java.io.IOException("the tag is taken"));
            }
            try {
              return client.openUpload(planned.repository());
            } catch (java.io.IOException e) {
              throw new CompletionException(e);
            }
          }, BuildParts.current().executor));
        }
      }
      return uploads;
    }

    /** An upload opened ahead, or a new one. */
    String next() throws java.io.IOException {
      CompletableFuture<String> ahead;
      synchronized (this) {
        ahead = taken < opened.size() ? opened.get(taken++) : null;
      }
      if (ahead != null) {
        try {
          return ahead.join();
        } catch (CompletionException | java.util.concurrent.CancellationException e) {
          LOG.debug("no upload opened ahead ({}); opening one", e.toString());
        }
      }
      return client.openUpload(repository);
    }

    /** Cancels the uploads opened ahead and not used (in the background). */
    synchronized void cancelUnused() {
      for (CompletableFuture<String> ahead : opened.subList(taken, opened.size())) {
        ahead.thenAcceptAsync(location -> client.cancelUpload(repository, location),
            BuildParts.current().executor);
      }
      taken = opened.size();
    }
  }

  /** Thrown inside a push to hand the build to Jib. */
  private static final class Fallback extends RuntimeException {
    Fallback(String reason) {
      super(reason, null, false, false);
    }
  }

  /**
   * Pushes the image of {@code context} made from {@code template}, or returns empty when it
   * cannot (the caller then builds with Jib).
   *
   * @param base the pinned base image (its registry and repository, for mounts)
   * @param planned the target with its content tag
   * @param uploads uploads opened ahead into the target ({@link OpenUploads#afterFreeTag})
   * @param layersAhead the application layers, being built ({@link #buildLayers})
   */
  static Optional<Result> push(BuildSettings settings, BuildContext context,
      ImageTemplates.Template template, ImageRef base, ImageRef planned, String fingerprint,
      RegistryClient target, OpenUploads uploads,
      CompletableFuture<List<BuiltLayer>> layersAhead, ProgressListener progress)
      throws InterruptedException {
    try {
      long start = System.nanoTime();
      Assembled image = assemble(context, template, fingerprint, layersAhead);
      progress.onEvent(new ProgressEvent.StepFinished("build layers", since(start)));
      long pushStart = System.nanoTime();
      Result result = upload(image, base, planned, settings.tags(), target, uploads, progress);
      progress.onEvent(new ProgressEvent.StepFinished("push " + planned.reference(),
          since(pushStart)));
      return Optional.of(result);
    } catch (Fallback e) {
      LOG.debug("pushing {} through Jib: {}", planned, e.getMessage());
      return Optional.empty();
    } catch (CompletionException e) {
      if (e.getCause() instanceof InterruptedException) {
        throw new InterruptedException("interrupted while pushing " + planned);
      }
      if (e.getCause() instanceof Fallback fallback) {
        LOG.debug("pushing {} through Jib: {}", planned, fallback.getMessage());
      } else {
        LOG.debug("pushing {} through Jib after a direct push failed", planned, e.getCause());
      }
      return Optional.empty();
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      LOG.debug("pushing {} through Jib after a direct push failed", planned, e);
      return Optional.empty();
    }
  }

  /** Records that {@code repository} holds every blob of {@code manifest} (after a Jib push). */
  static void rememberBlobs(ImageRef repository, byte[] manifest) {
    try {
      JsonNode json = Json.MAPPER.readTree(manifest);
      Set<String> known = known(repository);
      known.add(json.path("config").path("digest").asText());
      json.path("layers").forEach(layer -> known.add(layer.path("digest").asText()));
    } catch (java.io.IOException e) {
      LOG.debug("cannot read the manifest of {} ({})", repository, e.toString());
    }
  }

  /**
   * Mounts the layers of {@code base} that {@code planned}'s repository lacks, when both are in
   * the same registry, before Jib runs: Jib pulls every base layer missing from the target into
   * its cache before it pushes (and then mounts) it, so a new repository would otherwise cost a
   * download of the whole base. Anything that fails here is left to Jib.
   */
  static void mountBase(RegistryClient target, ImageRef planned, ImageRef base,
      RegistryClient.Manifest baseManifest, ProgressListener progress) {
    if (!base.registry().equals(planned.registry())) {
      return;  // another registry: no mount across registries, Jib streams the layers
    }
    long start = System.nanoTime();
    try {
      JsonNode manifest = Json.MAPPER.readTree(baseManifest.body());
      if (manifest.has("manifests")) {
        // an index: Jib builds for linux/amd64 unless told otherwise
        String platform = null;
        for (JsonNode entry : manifest.path("manifests")) {
          JsonNode about = entry.path("platform");
          if ("linux".equals(about.path("os").asText())
              && "amd64".equals(about.path("architecture").asText())) {
            platform = entry.path("digest").asText();
            break;
          }
        }
        Optional<RegistryClient.Manifest> chosen = platform == null ? Optional.empty()
            : target.manifest(base.repository(), platform);
        if (chosen.isEmpty()) {
          return;
        }
        manifest = Json.MAPPER.readTree(chosen.get().body());
      }
      Set<String> known = known(planned);
      List<CompletableFuture<Void>> mounts = new ArrayList<>();
      for (JsonNode layer : manifest.path("layers")) {
        String digest = layer.path("digest").asText();
        if (digest.isEmpty() || known.contains(digest)) {
          continue;
        }
        mounts.add(async(() -> {
          if (target.hasBlob(planned.repository(), digest)
              || target.mountBlob(planned.repository(), digest, base.repository())) {
            known.add(digest);
          }
        }));
      }
      CompletableFuture.allOf(mounts.toArray(CompletableFuture[]::new)).join();
      progress.onEvent(new ProgressEvent.StepFinished("mount base layers", since(start)));
    } catch (Exception e) {
      LOG.debug("cannot mount the layers of {} into {} ({}); Jib will", base, planned,
          e.toString());
    }
  }

  /** Forgets which blobs repositories hold (tests that delete them behind the SDK's back). */
  static void forgetKnownBlobs() {
    BuildParts.current().knownBlobs.clear();
  }

  private static Assembled assemble(BuildContext context, ImageTemplates.Template template,
      String fingerprint, CompletableFuture<List<BuiltLayer>> layersAhead) throws Exception {
    ObjectNode manifest = (ObjectNode) Json.MAPPER.readTree(template.manifest());
    ObjectNode config = (ObjectNode) Json.MAPPER.readTree(template.config());
    ArrayNode layers = (ArrayNode) manifest.path("layers");
    ArrayNode diffIds = (ArrayNode) config.path("rootfs").path("diff_ids");
    List<FileEntriesLayer> application = JibBuild.layers(context);
    int firstApplication = layers.size() - template.applicationLayers();
    int firstDiffId = diffIds.size() - template.applicationLayers();
    if (application.size() != template.applicationLayers() || firstApplication < 0
        || firstDiffId < 0 || !(config.path("config").path("Labels") instanceof ObjectNode)) {
      throw new Fallback("the template does not match the context's layers");
    }
    List<Blob> baseLayers = new ArrayList<>();
    for (int i = 0; i < firstApplication; i++) {
      baseLayers.add(new Blob(layers.get(i).path("digest").asText(),
          layers.get(i).path("size").asLong(), null));
    }
    List<BuiltLayer> built = layersAhead.join();
    if (built.size() != application.size()) {
      throw new Fallback("the layers built ahead do not match the context");
    }
    List<Blob> newBlobs = new ArrayList<>();
    for (int i = 0; i < built.size(); i++) {
      CachedLayer layer = built.get(i).layer();
      ObjectNode descriptor = (ObjectNode) layers.get(firstApplication + i);
      descriptor.put("digest", layer.getDigest().toString());
      descriptor.put("size", layer.getSize());
      diffIds.set(firstDiffId + i, layer.getDiffId().toString());
      newBlobs.add(new Blob(layer.getDigest().toString(), layer.getSize(),
          built.get(i).content()));
    }
    ((ObjectNode) config.path("config").path("Labels")).put(BuildFingerprint.LABEL, fingerprint);
    byte[] configBytes = Json.MAPPER.writeValueAsBytes(config);
    String configDigest = RegistryClient.sha256(configBytes);
    ObjectNode configDescriptor = (ObjectNode) manifest.path("config");
    configDescriptor.put("digest", configDigest);
    configDescriptor.put("size", configBytes.length);
    newBlobs.add(new Blob(configDigest, configBytes.length, configBytes));
    byte[] manifestBytes = Json.MAPPER.writeValueAsBytes(manifest);
    return new Assembled(baseLayers, newBlobs, template.mediaType(), manifestBytes,
        RegistryClient.sha256(manifestBytes));
  }

  /** An application layer in Jib's cache, with its content when small enough to upload here. */
  record BuiltLayer(CachedLayer layer, byte[] content) {}

  /**
   * Starts building the application layers of {@code context} into Jib's application-layer
   * cache, as Jib's {@code BuildAndCacheApplicationLayerStep} does (the same cache, the same
   * {@code ReproducibleLayerBuilder}), while the build reads the registry: the work (and, in a
   * new JVM, the loading of the classes it needs) overlaps with those round trips. Nothing is
   * wasted when the build then needs no push or goes through Jib: Jib finds the layers cached.
   */
  static CompletableFuture<List<BuiltLayer>> buildLayers(BuildSettings settings,
      BuildContext context) {
    return CompletableFuture.supplyAsync(() -> {
      try {
        Cache cache = Cache.withDirectory(settings.applicationLayerCacheDirectory());
        List<BuiltLayer> built = new ArrayList<>();
        for (FileEntriesLayer layer : JibBuild.layers(context)) {
          ImmutableList<FileEntry> entries = ImmutableList.copyOf(layer.getEntries());
          Optional<CachedLayer> cached = cache.retrieve(entries);
          CachedLayer done = cached.isPresent() ? cached.get() : cache.writeUncompressedLayer(
              new ReproducibleLayerBuilder(entries).build(), entries);
          built.add(new BuiltLayer(done, contentOf(done)));
        }
        return built;
      } catch (Exception e) {
        throw new CompletionException(e);
      }
    }, BuildParts.current().executor);
  }

  private static byte[] contentOf(CachedLayer layer) throws java.io.IOException {
    if (layer.getSize() > MAX_LAYER_BYTES) {
      // Known to the registry (asked first), it is never read; otherwise Jib streams it.
      return null;
    }
    ByteArrayOutputStream content = new ByteArrayOutputStream((int) layer.getSize());
    layer.getBlob().writeTo(content);
    return content.toByteArray();
  }

  private static Result upload(Assembled image, ImageRef base, ImageRef planned,
      List<String> tags, RegistryClient target, OpenUploads uploads, ProgressListener progress) {
    String repository = planned.repository();
    Set<String> known = known(planned);
    AtomicInteger blobs = new AtomicInteger();
    AtomicLong bytes = new AtomicLong();
    long total = image.newBlobs().stream().mapToLong(Blob::size).sum();
    List<CompletableFuture<Void>> work = new ArrayList<>();
    for (Blob layer : image.baseLayers()) {
      if (!known.contains(layer.digest())) {
        work.add(async(() -> {
          if (!target.hasBlob(repository, layer.digest())) {
            // Same registry: the base's layers are one mount each, nothing moves.
            if (!base.registry().equals(planned.registry())
                || !target.mountBlob(repository, layer.digest(), base.repository())) {
              throw new Fallback("base layer " + layer.digest() + " is not in " + repository
                  + " and cannot be mounted");
            }
          }
          known.add(layer.digest());
        }));
      }
    }
    for (Blob blob : image.newBlobs()) {
      if (known.contains(blob.digest())) {
        continue;
      }
      work.add(async(() -> {
        boolean ask = blob.content() == null || blob.size() > ASK_FIRST_BYTES;
        if (!ask || !target.hasBlob(repository, blob.digest())) {
          if (blob.content() == null) {
            throw new Fallback("layer " + blob.digest() + " is too large to upload directly");
          }
          target.completeUpload(repository, uploads.next(), blob.digest(), blob.content());
          blobs.incrementAndGet();
          progress.onEvent(new ProgressEvent.BytesTransferred("push " + planned.reference(),
              bytes.addAndGet(blob.size()), total));
        }
        known.add(blob.digest());
      }));
    }
    CompletableFuture.allOf(work.toArray(CompletableFuture[]::new)).join();
    long manifestStart = System.nanoTime();
    String digest;
    try {
      digest = target.putManifest(repository, planned.tag().orElseThrow(), image.mediaType(),
          image.manifest());
    } catch (java.io.IOException e) {
      // e.g. MANIFEST_BLOB_UNKNOWN: a blob thought present was deleted (garbage collection)
      BuildParts.current().knownBlobs.remove(repositoryKey(planned));
      throw new CompletionException(e);
    }
    if (!digest.equals(image.digest())) {
      throw new Fallback("the registry gave the manifest digest " + digest + ", not "
          + image.digest());
    }
    List<CompletableFuture<Void>> tagging = new ArrayList<>();
    for (String tag : tags) {
      tagging.add(async(() -> target.putManifest(repository, tag, image.mediaType(),
          image.manifest())));
    }
    CompletableFuture.allOf(tagging.toArray(CompletableFuture[]::new)).join();
    progress.onEvent(new ProgressEvent.StepFinished("push manifest", since(manifestStart)));
    return new Result(planned.withDigest(digest), blobs.get(), bytes.get());
  }

  /** A step of a push that may fail; runs on the push threads. */
  private interface Step {
    void run() throws Exception;
  }

  private static CompletableFuture<Void> async(Step step) {
    return CompletableFuture.runAsync(() -> {
      try {
        step.run();
      } catch (RuntimeException e) {
        throw e;
      } catch (Exception e) {
        throw new CompletionException(e);
      }
    }, BuildParts.current().executor);
  }

  private static Set<String> known(ImageRef repository) {
    return BuildParts.current().knownBlobs.computeIfAbsent(repositoryKey(repository),
        key -> Collections.synchronizedSet(
        Collections.newSetFromMap(new LinkedHashMap<String, Boolean>() {
          private static final long serialVersionUID = 1L;

          @Override
          protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
            return size() > KNOWN_BLOBS;
          }
        })));
  }

  private static String repositoryKey(ImageRef repository) {
    return repository.registry() + "/" + repository.repository();
  }

  private static Duration since(long nanoStart) {
    return Duration.ofNanos(System.nanoTime() - nanoStart);
  }
}
