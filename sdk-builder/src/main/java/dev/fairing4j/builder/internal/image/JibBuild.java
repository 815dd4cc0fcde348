package dev.fairing4j.builder.internal.image;

import com.google.cloud.tools.jib.api.Containerizer;
import com.google.cloud.tools.jib.api.Credential;
import com.google.cloud.tools.jib.api.CredentialRetriever;
import com.google.cloud.tools.jib.api.DockerDaemonImage;
import com.google.cloud.tools.jib.api.ImageReference;
import com.google.cloud.tools.jib.api.InvalidImageReferenceException;
import com.google.cloud.tools.jib.api.Jib;
import com.google.cloud.tools.jib.api.JibContainer;
import com.google.cloud.tools.jib.api.JibContainerBuilder;
import com.google.cloud.tools.jib.api.LogEvent;
import com.google.cloud.tools.jib.api.RegistryImage;
import com.google.cloud.tools.jib.api.TarImage;
import com.google.cloud.tools.jib.api.buildplan.AbsoluteUnixPath;
import com.google.cloud.tools.jib.api.buildplan.FileEntriesLayer;
import com.google.cloud.tools.jib.api.buildplan.FilePermissions;
import com.google.cloud.tools.jib.api.buildplan.ImageFormat;
import com.google.cloud.tools.jib.event.events.ProgressEvent;
import com.google.cloud.tools.jib.event.events.TimerEvent;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.Layer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * One Jib build: the context's files as two layers (requirements, then code) on the base, with
 * the context's command, arguments, environment, working directory and labels (and the
 * settings' user, ports and volumes), pushed to a registry,
 * written to a tar or loaded into a Docker engine.
 *
 * <p>Everything that could differ between two builds of the same inputs is pinned: the creation
 * time and every file's modification time are the epoch (plus one second for files, Jib's
 * convention), permissions are 644 or 755, owners are root, entries are sorted by path. So the
 * same inputs give the same digest, on any machine and in any JVM.
 */
final class JibBuild {
  /** Jib's own default for file times: the epoch plus one second (some tools treat 0 as unset). */
  static final Instant FILE_TIME = Instant.ofEpochSecond(1);

  private JibBuild() {}

  /**
   * Runs the build.
   *
   * @param context the staged context ({@link ContentStaging}): every file is a copy on disk
   * @param baseReference the base as Jib should pull it (pinned to a digest where known)
   * @param targetReference {@code registry/repository:tag}, or the tar's image name
   * @param extraLabels labels added to the context's (the fingerprint)
   */
  static JibContainer run(BuildSettings settings, BuildContext context, String baseReference,
      String targetReference, Map<String, String> extraLabels, JibProgress progress, Optional<RegistryCredential> baseCredential,
      Optional<RegistryCredential> targetCredential) throws Exception {
    JibContainerBuilder builder = from(settings.base(), baseReference, baseCredential);
    builder.setFileEntriesLayers(layers(context));
    if (!context.command().isEmpty()) {
      builder.setEntrypoint(context.command());
    }
    if (!context.args().isEmpty()) {
      builder.setProgramArguments(context.args());
    }
    if (!settings.exposedPorts().isEmpty()) {
      builder.setExposedPorts(com.google.cloud.tools.jib.api.Ports.parse(
          settings.exposedPorts()));
    }
    if (!settings.volumes().isEmpty()) {
      java.util.Set<AbsoluteUnixPath> volumes = new java.util.LinkedHashSet<>();
      settings.volumes().forEach(path -> volumes.add(AbsoluteUnixPath.get(path)));
      builder.setVolumes(volumes);
    }
    builder.setEnvironment(context.env());
    builder.setWorkingDirectory(AbsoluteUnixPath.get(context.workingDir()));
    Map<String, String> labels = new TreeMap<>(context.labels());
    labels.putAll(extraLabels);
    builder.setLabels(labels);
    settings.user().ifPresent(builder::setUser);
    builder.setCreationTime(Instant.EPOCH);
    builder.setFormat(settings.format() == dev.fairing4j.builder.ImageFormat.OCI
        ? ImageFormat.OCI : ImageFormat.Docker);

    Containerizer containerizer;
    if (settings.tar().isPresent()) {
      containerizer = Containerizer.to(TarImage.at(settings.tar().get()).named(targetReference));
    } else if (settings.dockerDaemon()) {
      containerizer = Containerizer.to(DockerDaemonImage.named(targetReference));
      for (String tag : settings.tags()) {
        containerizer.withAdditionalTag(tag);
      }
    } else {
      RegistryImage target = RegistryImage.named(targetReference);
      targetCredential.ifPresent(c -> target.addCredentialRetriever(retriever(c)));
      containerizer = Containerizer.to(target);
      for (String tag : settings.tags()) {
        containerizer.withAdditionalTag(tag);
      }
    }
    containerizer.setAllowInsecureRegistries(settings.insecureAllowed())
        .setBaseImageLayersCache(settings.baseLayerCacheDirectory())
        .setApplicationLayersCache(settings.applicationLayerCacheDirectory())
        .setToolName("fairing4j")
        .setToolVersion(BuildFingerprint.LAYOUT_VERSION)
        .addEventHandler(TimerEvent.class, progress::onTimer)
        .addEventHandler(ProgressEvent.class, progress::onProgress)
        .addEventHandler(LogEvent.class, progress::onLog);
    if (settings.tar().isPresent() || settings.dockerDaemon()) {
      return builder.containerize(containerizer);
    }
    // Jib retries a failed blob upload on its own, with google-http-client's exponential backoff
    // and up to 10 tries (about a minute against a registry that went away). Its threads run on
    // this executor so that the SDK can cut that short after a few retries: ImageBuildRun then
    // reports the registry, and the next run resumes (blobs already pushed are skipped).
    ExecutorService executor = Executors.newCachedThreadPool(runnable -> {
      Thread thread = new Thread(runnable, "fairing4j-jib");
      thread.setDaemon(true);
      return thread;
    });
    JibRetryBudget budget = new JibRetryBudget(JibRetryBudget.MAX_RETRIES, executor);
    containerizer.setExecutorService(executor).addEventHandler(LogEvent.class, budget::onLog);
    try {
      return builder.containerize(containerizer);
    } catch (ExecutionException | InterruptedException | RuntimeException e) {
      // Jib also retries a failed TLS handshake; that is no outage, and JibFailures says why.
      if (budget.exhausted() && !causedByTls(e)) {
        throw budget.failure(targetReference, e);
      }
      throw e;
    } finally {
      executor.shutdownNow();
    }
  }

  private static boolean causedByTls(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof javax.net.ssl.SSLException) {
        return true;
      }
    }
    return false;
  }

  private static JibContainerBuilder from(BaseImage base, String reference,
      Optional<RegistryCredential> credential) throws InvalidImageReferenceException {
    if (base instanceof BaseImage.FromDockerTar tar) {
      return Jib.from(TarImage.at(tar.tar()));
    }
    if (base instanceof BaseImage.Scratch) {
      return Jib.fromScratch();
    }
    RegistryImage image = RegistryImage.named(ImageReference.parse(reference));
    credential.ifPresent(c -> image.addCredentialRetriever(retriever(c)));
    return Jib.from(image);
  }

  /** The layers, from the files of {@code context}: staged copies, all on disk. */
  static List<FileEntriesLayer> layers(BuildContext context) {
    List<FileEntriesLayer> layers = new ArrayList<>();
    for (Layer layer : Layer.values()) {
      Map<String, ContextFile> files = context.files(layer);
      if (files.isEmpty()) {
        continue;
      }
      FileEntriesLayer.Builder entries = FileEntriesLayer.builder()
          .setName(layer.name().toLowerCase(java.util.Locale.ROOT));
      files.forEach((containerPath, file) -> {
        Path source = file.source().orElseThrow(() -> new IllegalStateException(
            containerPath + " was not staged"));
        entries.addEntry(source, AbsoluteUnixPath.get(containerPath),
            FilePermissions.fromOctalString(file.isExecutable() ? "755" : "644"), FILE_TIME);
      });
      layers.add(entries.build());
    }
    return layers;
  }

  private static CredentialRetriever retriever(RegistryCredential credential) {
    return () -> Optional.of(Credential.from(credential.username(),
        credential.password().reveal()));
  }
}
