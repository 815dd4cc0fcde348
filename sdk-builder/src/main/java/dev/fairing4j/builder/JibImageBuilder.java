package dev.fairing4j.builder;

import com.google.cloud.tools.jib.api.ImageReference;
import com.google.cloud.tools.jib.api.InvalidImageReferenceException;
import dev.fairing4j.builder.internal.image.BaseImage;
import dev.fairing4j.builder.internal.image.BuildSettings;
import dev.fairing4j.builder.internal.image.CredentialSource;
import dev.fairing4j.builder.internal.image.ImageBuildRun;
import dev.fairing4j.builder.internal.image.LocalStoreBuild;
import dev.fairing4j.builder.internal.image.RegistryCredential;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ImageBuilder;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.LocalImageStore;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.RegistryCredentials;
import dev.fairing4j.core.Secret;
import dev.fairing4j.core.internal.GuardedListener;
import dev.fairing4j.core.internal.Validators;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Builds images with Jib, without a Docker daemon: the context's requirements layer, then its code
 * layer, on a base image, pushed to a registry (or written to a tar, or loaded into a local Docker
 * engine). Create one with
 * {@link Builders#jib(String)}; it is an immutable value, each call returns a new builder.
 *
 * <p>The image is tagged with the context's content tag (plus any {@link #tags}); the same inputs
 * always give the same digest, because every timestamp in it is fixed. Before building, the target
 * is asked whether that tag already holds exactly this image (the base digest, user and format
 * included); if so nothing is built or uploaded. When base and target share a registry, base
 * layers reach a new repository by cross-repository mount before anything else happens: nothing
 * of the base is downloaded or uploaded. A base in another registry is pulled once into a
 * persistent cache ({@link #baseLayerCache}) and uploaded into each new target repository.
 *
 * <p>The edit loop is short: once Jib has pushed an image, a later build with the same base,
 * settings, command, environment and labels (only the files changed) is assembled by the SDK from
 * what Jib pushed, with Jib's own layer builder and cache, and pushed with a POST and a PUT per
 * new blob over kept-alive connections, then the manifest: the same digest Jib would give, in a
 * few round trips. What Jib pushed is kept beside the cache ({@code <cache>-image-templates}), so
 * a new JVM starts from it too. Anything unusual hands the build back to Jib.
 *
 * <p>Plain HTTP is used only when the target and the base registry are both on this machine, or
 * after {@link #allowInsecure()}. Credentials never appear in messages or {@link #toString()}.
 */
public final class JibImageBuilder implements ImageBuilder {
  private final BuildSettings settings;

  JibImageBuilder(BuildSettings settings) {
    this.settings = settings;
  }

  /**
   * Pushes to {@code repository}, e.g. {@code registry.example.com/team/mnist}; a tag given with
   * it is pushed too, like one added with {@link #tags}.
   *
   * <p>The repository must start with its registry host ({@code host}, {@code host:port} or
   * {@code localhost}). Docker's short forms ({@code hello}, {@code team/hello}) silently mean
   * Docker Hub, a public registry, which is rarely where training code should go; they are
   * refused here. To push to Docker Hub, say so: {@code docker.io/library/hello},
   * {@code docker.io/team/hello}.
   *
   * @throws InvalidInputException (field {@code pushTo}) for a malformed reference, a digest, or
   *     a reference without a registry host
   */
  public JibImageBuilder pushTo(String repository) {
    ImageRef parsed = parse("pushTo", repository);
    if (!namesItsRegistry(repository, parsed)) {
      String typed = repository.trim().replaceFirst("[:@].*$", "");
      throw InvalidInputException.of("pushTo", "'" + repository.trim() + "' names no registry"
          + " host, so it would mean Docker Hub (" + ImageRef.DOCKER_HUB + "), a public registry",
          "start with the registry host, e.g. registry.example.com/" + typed
              + " or 127.0.0.1:5000/" + typed + "; to push to Docker Hub, write "
              + ImageRef.DOCKER_HUB + "/" + parsed.repository()
              + parsed.tag().map(tag -> ":" + tag).orElse(""));
    }
    if (parsed.digest().isPresent()) {
      throw InvalidInputException.of("pushTo", "'" + repository + "' names a digest",
          "give a repository such as registry.example.com/team/app (the digest is the result)");
    }
    List<String> tags = new ArrayList<>(settings.tags());
    parsed.tag().filter(tag -> !tags.contains(tag)).ifPresent(tags::add);
    return with(settings.withRepository(new ImageRef(parsed.registry(), parsed.repository(),
        Optional.empty(), Optional.empty())).withTags(tags));
  }


  /**
   * Writes the image to a tar file instead of pushing: a {@code docker load} archive for
   * {@link ImageFormat#DOCKER}, an OCI archive for {@link ImageFormat#OCI}. Its name is the
   * {@link #pushTo} repository if set, else {@code localhost/fairing4j/image}.
   */
  public JibImageBuilder toTar(Path tarFile) {
    Objects.requireNonNull(tarFile, "tarFile");
    return with(settings.withTar(tarFile.toAbsolutePath().normalize()));
  }

  /**
   * Loads the image into the local Docker engine ({@code docker load}) instead of pushing. The
   * engine must answer {@code docker info}; the docker CLI alone is not enough. The image is
   * named after the {@link #pushTo} repository if set, else {@code localhost/fairing4j/image}.
   */
  public JibImageBuilder toDockerDaemon() {
    return with(settings.withDockerDaemon());
  }


  /** Docker (default) or OCI manifests. */
  public JibImageBuilder format(ImageFormat format) {
    return with(settings.withFormat(Objects.requireNonNull(format, "format")));
  }


  /** Tags pushed besides the content tag, e.g. {@code latest} or {@code v3}. */
  public JibImageBuilder tags(String... tags) {
    List<String> all = new ArrayList<>(settings.tags());
    for (String tag : Objects.requireNonNull(tags, "tags")) {
      Validators.requireText("tags", tag);
      try {
        new ImageRef("localhost", "x", Optional.of(tag), Optional.empty());
      } catch (InvalidInputException e) {
        throw InvalidInputException.of("tags", "'" + tag + "' is not a valid tag",
            "use up to 128 letters, digits, '_', '.' and '-', not starting with '.' or '-'");
      }
      if (!all.contains(tag)) {
        all.add(tag);
      }
    }
    return with(settings.withTags(all));
  }

  /**
   * Credentials for the target registry; also used for the base when it lives in the same
   * registry and {@link #baseCredentials} is not set.
   */
  public JibImageBuilder credentials(String username, Secret password) {
    return withTargetCredentials(settings.targetCredentials().withExplicit(credential(username,
        password)));
  }

  /** Credentials for the base image's registry. */
  public JibImageBuilder baseCredentials(String username, Secret password) {
    return with(settings.withBaseCredentials(settings.baseCredentials()
        .orElse(CredentialSource.NONE).withExplicit(credential(username, password))));
  }


  /**
   * Target credentials read from two environment variables when the build runs, e.g.
   * {@code credentialsFromEnvironment("REGISTRY_USER", "REGISTRY_PASSWORD")}.
   */
  public JibImageBuilder credentialsFromEnvironment(String userVariable, String passwordVariable) {
    Validators.requireText("userVariable", userVariable);
    Validators.requireText("passwordVariable", passwordVariable);
    return withTargetCredentials(settings.targetCredentials().withEnvironment(userVariable,
        passwordVariable));
  }

  /**
   * Falls back to Docker's {@code ~/.docker/config.json} and the credential helpers it names
   * ({@code credHelpers}, {@code credsStore}), for target and base, when no explicit credentials
   * are set.
   */
  public JibImageBuilder dockerConfig() {
    BuildSettings withDocker = settings.withTargetCredentials(
        settings.targetCredentials().withDockerConfig());
    return with(settings.baseCredentials().isEmpty() ? withDocker
        : withDocker.withBaseCredentials(settings.baseCredentials().get().withDockerConfig()));
  }


  /**
   * Allows plain HTTP and unverified TLS for the target AND the base registry (Jib has one switch
   * for both); logs a warning on every build. Without it, plain HTTP is used only when both
   * registries are on this machine.
   */
  public JibImageBuilder allowInsecure() {
    return with(settings.withAllowInsecure());
  }


  /**
   * Trusts the CA certificates in these PEM files, in addition to the JVM's: for a registry with
   * a private CA. Verification stays on; nothing is trusted that was not named.
   *
   * <p><b>This changes the whole JVM</b>, once, when the first build with a new CA runs: Jib only
   * uses the JVM's default {@code SSLContext}, so the SDK installs a new default
   * ({@code SSLContext.setDefault}) that trusts the union of what the JVM trusted (the JDK's
   * default trust managers: the trust store named by {@code javax.net.ssl.trustStore}, else
   * {@code cacerts}) and these CAs, and keeps the client key store named by
   * {@code javax.net.ssl.keyStore}. Every HTTPS client in the JVM that uses the default then
   * trusts these CAs too; what it trusted before it still trusts, and no {@code javax.net.ssl.*}
   * system property is changed. The change is logged once at WARN. A default SSLContext that the
   * host application installed itself is replaced (its trust cannot be read back): such a host
   * should add the CA to its own context, or to the JVM's trust store, instead.
   */
  public JibImageBuilder trustedCertificates(Path... pemFiles) {
    List<Path> all = new ArrayList<>(settings.trustedCertificates());
    for (Path pem : Objects.requireNonNull(pemFiles, "pemFiles")) {
      all.add(Objects.requireNonNull(pem, "pemFile").toAbsolutePath().normalize());
    }
    return with(settings.withTrustedCertificates(all));
  }

  /**
   * Where base layers pulled from another registry are kept between builds and JVMs; default
   * {@code ~/.cache/fairing4j/jib} (or under {@code $XDG_CACHE_HOME}).
   */
  public JibImageBuilder baseLayerCache(Path directory) {
    Path absolute = Objects.requireNonNull(directory, "baseLayerCache").toAbsolutePath()
        .normalize();
    if (absolute.getParent() == null) {
      // Jib's application layers and the staged context go beside it, which the root has not.
      throw InvalidInputException.of("baseLayerCache", "'" + absolute + "' is the root of the"
          + " file system", "give a directory of its own, e.g. Path.of(System.getProperty("
          + "\"user.home\"), \".cache\", \"fairing4j\", \"jib\")");
    }
    return with(settings.withBaseLayerCache(absolute));
  }


  /** The user the container runs as, e.g. {@code 1000} or {@code 1000:1000}. */
  public JibImageBuilder user(String user) {
    Validators.requireText("user", user);
    return with(settings.withUser(user.trim()));
  }


  @Override
  public ImageRef plannedImage(BuildContext context) {
    return run().planned(context);
  }

  @Override
  public void validate(BuildContext context) {
    run().validate(context);
  }

  /**
   * {@inheritDoc}
   *
   * <p>A listener that throws is logged once and otherwise ignored: a progress display never
   * fails a build.
   */
  @Override
  public ImageRef build(BuildContext context, ProgressListener progress) {
    return run().build(context, GuardedListener.guard(Objects.requireNonNull(progress,
        "progress")));
  }

  /** Whether {@link #pushTo}, {@link #toTar} or {@link #toDockerDaemon} named a target. */
  @Override
  public boolean hasTarget() {
    return settings.repository().isPresent() || !settings.pushes();
  }

  /**
   * This builder writing into {@code store} ({@code Clusters.podman()}'s image storage): the
   * image, named {@code localhost/fairing4j/image:<content tag>}, is loaded there and runs from
   * there, with no registry.
   */
  @Override
  public ImageBuilder intoLocalStore(LocalImageStore store) {
    return new LocalStoreBuild(this, this::toTar, Objects.requireNonNull(store, "store"));
  }

  /**
   * The credentials a cluster needs to pull the pushed image: the target registry
   * ({@code host[:port]}) with the user and password given by {@link #credentials} or read now
   * from the variables named by {@link #credentialsFromEnvironment}. The pipeline hands them to
   * the deployer, which creates an image-pull Secret from them.
   *
   * <p>Empty when the image is not pushed (tar, Docker engine), when the push is anonymous, and
   * when the only source is {@link #dockerConfig()}: a credential helper's answer is often a
   * short-lived token or a personal login, which must not be copied into a cluster Secret
   * behind the user's back; give the cluster its own pull Secret
   * ({@code Mutators.imagePullSecrets}) or pass explicit credentials instead.
   *
   * @throws InvalidInputException when {@link #credentialsFromEnvironment} names a variable that
   *     is not set
   */
  @Override
  public Optional<RegistryCredentials> pullCredentials() {
    CredentialSource target = settings.targetCredentials();
    if (!settings.pushes() || settings.repository().isEmpty()
        || (target.explicit().isEmpty() && target.userVariable().isEmpty())) {
      return Optional.empty();
    }
    ImageRef repository = settings.repository().get();
    CredentialSource withoutDocker = new CredentialSource(target.explicit(),
        target.userVariable(), target.passwordVariable(), false);
    return withoutDocker.resolve(repository.reference(), System.getenv())
        .map(credential -> new RegistryCredentials(repository.registry(), credential.username(),
            credential.password()));
  }

  /** The settings, for a builder that builds through this one ({@code DockerfileImageBuilder}). */
  BuildSettings settings() {
    return settings;
  }

  private ImageBuildRun run() {
    return new ImageBuildRun(settings, System.getenv());
  }

  private JibImageBuilder withTargetCredentials(CredentialSource credentials) {
    return with(settings.withTargetCredentials(credentials));
  }


  private static JibImageBuilder with(BuildSettings settings) {
    return new JibImageBuilder(settings);
  }

  private static RegistryCredential credential(String username, Secret password) {
    Validators.requireText("username", username);
    Objects.requireNonNull(password, "password");
    return new RegistryCredential(username, password);
  }

  /** Whether {@code reference} starts with its registry, rather than leaving Docker Hub implied. */
  private static boolean namesItsRegistry(String reference, ImageRef parsed) {
    String trimmed = reference.trim();
    int slash = trimmed.indexOf('/');
    return slash > 0 && trimmed.substring(0, slash).equals(parsed.registry());
  }

  static ImageRef parse(String field, String reference) {
    ImageRef parsed;
    try {
      parsed = ImageRef.parse(reference);
    } catch (InvalidInputException e) {
      throw InvalidInputException.of(field, e.getMessage().replaceFirst("^validate image failed: ",
          "").replaceFirst(" \\(fix: .*\\)$", ""), e.fix(), e);
    }
    try {
      // Jib parses every reference again when it builds; what it cannot read must fail here.
      ImageReference.parse(parsed.toString());
    } catch (InvalidImageReferenceException e) {
      throw InvalidInputException.of(field, "'" + reference.trim() + "' is a reference Jib cannot"
          + " use" + (parsed.registry().startsWith("[") ? " (Jib does not take IPv6 addresses)"
              : ""), "name the registry by a host name, e.g. localhost:5000 (or an /etc/hosts"
          + " entry for the address)", e);
    }
    return parsed;
  }

  static JibImageBuilder on(BaseImage base) {
    return new JibImageBuilder(BuildSettings.on(base));
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof JibImageBuilder that && settings.equals(that.settings);
  }

  @Override
  public int hashCode() {
    return settings.hashCode();
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder("jib(").append(settings.base().describe());
    settings.repository().ifPresent(r -> text.append(" -> ").append(r.name()));
    settings.tar().ifPresent(t -> text.append(" -> tar:").append(t.getFileName()));
    if (settings.dockerDaemon()) {
      text.append(" -> docker daemon");
    }
    if (!settings.tags().isEmpty()) {
      text.append(", tags=").append(settings.tags());
    }
    if (settings.format() == ImageFormat.OCI) {
      text.append(", oci");
    }
    if (!settings.targetCredentials().equals(CredentialSource.NONE)) {
      text.append(", credentials=").append(settings.targetCredentials().describe());
    }
    settings.baseCredentials().ifPresent(c -> text.append(", baseCredentials=")
        .append(c.describe()));
    settings.user().ifPresent(u -> text.append(", user=").append(u));
    if (settings.allowInsecure()) {
      text.append(", insecure");
    }
    return text.append(')').toString();
  }
}
