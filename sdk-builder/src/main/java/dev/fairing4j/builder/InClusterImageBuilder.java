package dev.fairing4j.builder;

import dev.fairing4j.builder.internal.Json;
import dev.fairing4j.builder.internal.dockerfile.DockerfilePlan;
import dev.fairing4j.builder.internal.dockerfile.DockerfileTranslation;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.BuildSite;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.ImageBuilder;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.Layer;
import dev.fairing4j.core.PodBuild;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.RegistryCredentials;
import dev.fairing4j.core.Secret;
import dev.fairing4j.core.internal.GuardedListener;
import dev.fairing4j.core.internal.Sha256;
import dev.fairing4j.core.internal.Validators;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Builds the image inside a cluster, in a Kaniko pod (Kubeflow Fairing's {@code cluster}
 * builder): the build context is streamed to the pod's stdin, the pod builds and pushes, and the
 * pod and its short-lived credentials Secret are removed afterwards, also on failure and on
 * timeout. A laptop that cannot reach the registry, or has no builder, still builds. Create one
 * with {@link Builders#inCluster(BuildSite)} ({@code Clusters.kubernetes()} is a build site),
 * then say what to build: {@link #dockerfile(Path)} (a Dockerfile over the pipeline's context,
 * as {@link DockerfileImageBuilder} reads it) or {@link #base(String)} (the context on a base,
 * as {@link JibImageBuilder} makes it).
 *
 * <p>{@link #pushTo} names the registry as the cluster's pods reach it (which may differ from
 * this machine's name for it); the job's pods pull the same reference. Each Kaniko log line
 * reaches the progress; a failed build reports its step and last lines; where the cluster
 * cannot pull the executor image, the error names it and how to mirror it.
 */
public final class InClusterImageBuilder implements ImageBuilder {
  /** Upstream's executor; mirror it where the cluster cannot reach gcr.io. */
  public static final String DEFAULT_EXECUTOR = "gcr.io/kaniko-project/executor:v1.23.2";
  private static final String LABEL = "dev.fairing4j.builder.in-cluster";
  private static final String GENERATED_DOCKERFILE = ".fairing4j/Dockerfile";

  private final BuildSite site;
  private final Optional<Path> dockerfile;
  private final Optional<String> base;
  private final Optional<ImageRef> repository;
  private final List<String> tags;
  private final Map<String, String> buildArgs;
  private final Optional<RegistryCredentials> credentials;
  private final boolean insecure;
  private final String executor;
  private final Optional<String> namespace;
  private final Duration timeout;

  private InClusterImageBuilder(BuildSite site, Optional<Path> dockerfile, Optional<String> base,
      Optional<ImageRef> repository, List<String> tags, Map<String, String> buildArgs,
      Optional<RegistryCredentials> credentials, boolean insecure, String executor,
      Optional<String> namespace, Duration timeout) {
    this.site = site;
    this.dockerfile = dockerfile;
    this.base = base;
    this.repository = repository;
    this.tags = List.copyOf(tags);
    this.buildArgs = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(buildArgs));
    this.credentials = credentials;
    this.insecure = insecure;
    this.executor = executor;
    this.namespace = namespace;
    this.timeout = timeout;
  }

  static InClusterImageBuilder on(BuildSite site) {
    return new InClusterImageBuilder(Objects.requireNonNull(site, "site"), Optional.empty(),
        Optional.empty(), Optional.empty(), List.of(), Map.of(), Optional.empty(), false,
        DEFAULT_EXECUTOR, Optional.empty(), Duration.ofMinutes(30));
  }

  /**
   * Builds {@code dockerfile} over the pipeline's context (the preprocessor's files, then the
   * Dockerfile's directory, minus {@code .dockerignore}); {@code RUN} steps run in the pod.
   *
   * @throws InvalidInputException (field {@code dockerfile}) when it does not exist
   */
  public InClusterImageBuilder dockerfile(Path dockerfile) {
    Path absolute = Objects.requireNonNull(dockerfile, "dockerfile").toAbsolutePath()
        .normalize();
    DockerfileTranslation.read(absolute);
    return new InClusterImageBuilder(site, Optional.of(absolute), Optional.empty(), repository,
        tags, buildArgs, credentials, insecure, executor, namespace, timeout);
  }

  /** Builds the context on {@code baseImage}, as {@code Builders.jib(baseImage)} would. */
  public InClusterImageBuilder base(String baseImage) {
    ImageRef parsed = JibImageBuilder.parse("baseImage", baseImage);
    return new InClusterImageBuilder(site, Optional.empty(), Optional.of(parsed.toString()),
        repository, tags, buildArgs, credentials, insecure, executor, namespace, timeout);
  }

  /** Where the image goes, as the cluster's pods reach the registry. */
  public InClusterImageBuilder pushTo(String target) {
    ImageRef parsed = Builders.scratch().pushTo(target).settings().repository().orElseThrow();
    List<String> all = new ArrayList<>(tags);
    ImageRef.parse(target.trim()).tag().filter(t -> !all.contains(t)).ifPresent(all::add);
    return new InClusterImageBuilder(site, dockerfile, base, Optional.of(parsed), all,
        buildArgs, credentials, insecure, executor, namespace, timeout);
  }

  /** Tags pushed besides the content tag. */
  public InClusterImageBuilder tags(String... extra) {
    List<String> all = new ArrayList<>(tags);
    for (String tag : Builders.scratch().tags(extra).settings().tags()) {
      if (!all.contains(tag)) {
        all.add(tag);
      }
    }
    return new InClusterImageBuilder(site, dockerfile, base, repository, all, buildArgs,
        credentials, insecure, executor, namespace, timeout);
  }

  /** A build argument ({@code ARG}); only with {@link #dockerfile(Path)}. */
  public InClusterImageBuilder buildArg(String name, String value) {
    Validators.requireText("buildArg", name);
    Map<String, String> all = new LinkedHashMap<>(buildArgs);
    all.put(name.trim(), Objects.requireNonNull(value, "buildArg value"));
    return new InClusterImageBuilder(site, dockerfile, base, repository, tags, all,
        credentials, insecure, executor, namespace, timeout);
  }

  /**
   * Credentials for the target registry (and a base in it): the pod gets them in a Secret that
   * lives as long as the build; the job's pods pull with them too.
   */
  public InClusterImageBuilder credentials(String username, Secret password) {
    Validators.requireText("username", username);
    Objects.requireNonNull(password, "password");
    String registry = repository.map(ImageRef::registry).orElseThrow(() ->
        InvalidInputException.of("credentials", "come before pushTo(..), so their registry is"
            + " unknown", "call pushTo(\"registry.example.com/team/app\") first"));
    return new InClusterImageBuilder(site, dockerfile, base, repository, tags, buildArgs,
        Optional.of(new RegistryCredentials(registry, username, password)), insecure,
        executor, namespace, timeout);
  }

  /** Lets the pod reach the registries over plain HTTP or with unverified TLS. */
  public InClusterImageBuilder insecureRegistry() {
    return new InClusterImageBuilder(site, dockerfile, base, repository, tags, buildArgs,
        credentials, true, executor, namespace, timeout);
  }

  /** The Kaniko executor image the pod runs; default {@value #DEFAULT_EXECUTOR}. */
  public InClusterImageBuilder executorImage(String image) {
    ImageRef parsed = JibImageBuilder.parse("executorImage", image);
    return new InClusterImageBuilder(site, dockerfile, base, repository, tags, buildArgs,
        credentials, insecure, parsed.toString(), namespace, timeout);
  }

  /** The namespace of the build pod; default the site's. */
  public InClusterImageBuilder namespace(String name) {
    Validators.requireText("namespace", name);
    return new InClusterImageBuilder(site, dockerfile, base, repository, tags, buildArgs,
        credentials, insecure, executor, Optional.of(name.trim()), timeout);
  }

  /** How long a build may take before its pod is stopped and removed; default 30 minutes. */
  public InClusterImageBuilder timeout(Duration limit) {
    if (limit == null || limit.isNegative() || limit.isZero()) {
      throw InvalidInputException.of("timeout", "is " + limit, "give a positive duration,"
          + " e.g. Duration.ofMinutes(10)");
    }
    return new InClusterImageBuilder(site, dockerfile, base, repository, tags, buildArgs,
        credentials, insecure, executor, namespace, limit);
  }

  @Override
  public BuildContext imageContext(BuildContext prepared) {
    return dockerfile.isPresent() ? plan(prepared).context() : prepared;
  }

  @Override
  public BuildContext directContext(BuildContext prepared) {
    if (dockerfile.isPresent()) {
      return Builders.dockerfile(dockerfile.get()).directContext(prepared);
    }
    return prepared;
  }

  @Override
  public ImageRef plannedImage(BuildContext context) {
    return imageOf(tagged(context, planOf(context)));
  }

  private ImageRef imageOf(BuildContext tagged) {
    return repository.orElseGet(() -> ImageRef.parse("localhost/fairing4j/image"))
        .withTag(tagged.contentTag());
  }

  /**
   * {@inheritDoc}
   *
   * @throws InvalidInputException for a missing target, nothing to build, a Dockerfile that
   *     cannot be read or names a file outside the context, or a site that cannot be reached
   *     as configured
   */
  @Override
  public void validate(BuildContext context) {
    validated(context);
  }

  /** Checks the settings, then plans the Dockerfile (reading it once), then the site. */
  private Optional<DockerfilePlan> validated(BuildContext context) {
    if (repository.isEmpty()) {
      throw InvalidInputException.of("pushTo", "no target is set",
          "add .pushTo(\"registry.example.com/team/app\"), naming the registry as the"
              + " cluster's pods reach it");
    }
    if (dockerfile.isEmpty() && base.isEmpty()) {
      throw InvalidInputException.of("inCluster", "has nothing to build from",
          "add .dockerfile(Path.of(\"Dockerfile\")) or .base(\"python:3.11-slim\")");
    }
    if (base.isPresent() && !buildArgs.isEmpty()) {
      throw InvalidInputException.of("buildArg", "build arguments need a Dockerfile",
          "use .dockerfile(..) with an ARG for each, or drop them");
    }
    Optional<DockerfilePlan> plan = planOf(context);
    site.validateBuildSite();
    return plan;
  }

  /**
   * {@inheritDoc}
   *
   * <p>A listener that throws is logged once and otherwise ignored.
   */
  @Override
  public ImageRef build(BuildContext context, ProgressListener progress) {
    // Planned once: the files sent, the Dockerfile's text and the tag all come from one read.
    Optional<DockerfilePlan> plan = validated(context);
    ProgressListener guarded = GuardedListener.guard(Objects.requireNonNull(progress,
        "progress"));
    SortedMap<String, ContextFile> files;
    String dockerfileName;
    if (plan.isPresent()) {
      files = new TreeMap<>(plan.get().toolContext());
      dockerfileName = GENERATED_DOCKERFILE;
      files.put(dockerfileName, ContextFile.ofText(plan.get().text()));
    } else {
      files = contextLayout(context);
      dockerfileName = GENERATED_DOCKERFILE;
      files.put(dockerfileName, ContextFile.ofText(generatedDockerfile(context)));
    }
    ImageRef destination = imageOf(tagged(context, plan));
    return site.buildInPod(new PodBuild(files, dockerfileName, buildArgs, destination, tags,
        credentials, insecure, executor, namespace, timeout), guarded);
  }

  @Override
  public Optional<RegistryCredentials> pullCredentials() {
    return credentials;
  }

  /** The Dockerfile's plan for {@code prepared}; empty when the Dockerfile is generated. */
  private Optional<DockerfilePlan> planOf(BuildContext prepared) {
    return dockerfile.map(path -> plan(prepared));
  }

  private DockerfilePlan plan(BuildContext prepared) {
    return DockerfileTranslation.of(dockerfile.orElseThrow(), prepared, buildArgs,
        name -> "");
  }

  /** The context whose tag the image gets: the image's view, plus what the pod builds from. */
  private BuildContext tagged(BuildContext prepared, Optional<DockerfilePlan> plan) {
    List<String> parts = new ArrayList<>(List.of("kaniko", executor));
    BuildContext context = prepared;
    if (plan.isPresent()) {
      context = plan.get().context();
      parts.addAll(plan.get().inputs());
    } else {
      parts.add(base.orElse(""));
    }
    return context.withLabel(LABEL, "sha256:" + Sha256.ofParts(parts));
  }

  /** The context's files at {@code layers/<layer>/<container path>}, for the generated COPYs. */
  private static SortedMap<String, ContextFile> contextLayout(BuildContext context) {
    SortedMap<String, ContextFile> files = new TreeMap<>();
    context.files().forEach((path, file) -> files.put("layers/"
        + file.layer().name().toLowerCase(java.util.Locale.ROOT) + path, file));
    return files;
  }

  /** FROM the base, a COPY per layer, then the context's env, labels, directory and command. */
  String generatedDockerfile(BuildContext context) {
    StringBuilder text = new StringBuilder("FROM ").append(base.orElseThrow()).append('\n');
    for (Layer layer : Layer.values()) {
      if (!context.files(layer).isEmpty()) {
        text.append("COPY layers/").append(layer.name().toLowerCase(java.util.Locale.ROOT))
            .append("/ /\n");
      }
    }
    context.env().forEach((name, value) -> text.append("ENV ").append(name).append('=')
        .append(quoted(value)).append('\n'));
    context.labels().forEach((name, value) -> text.append("LABEL ").append(quoted(name))
        .append('=').append(quoted(value)).append('\n'));
    text.append("WORKDIR ").append(context.workingDir()).append('\n');
    if (!context.command().isEmpty()) {
      text.append("ENTRYPOINT ").append(json(context.command())).append('\n');
    }
    if (!context.args().isEmpty()) {
      text.append("CMD ").append(json(context.args())).append('\n');
    }
    return text.toString();
  }

  private static String quoted(String value) {
    return "\"" + value.replace("\\", "\\\\").replace("\"", "\\\"").replace("$", "\\$")
        .replace("\n", "\\n") + "\"";
  }

  private static String json(List<String> parts) {
    try {
      return Json.MAPPER.writeValueAsString(parts);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof InClusterImageBuilder that && site.equals(that.site)
        && dockerfile.equals(that.dockerfile) && base.equals(that.base)
        && repository.equals(that.repository) && tags.equals(that.tags)
        && buildArgs.equals(that.buildArgs) && credentials.equals(that.credentials)
        && insecure == that.insecure && executor.equals(that.executor)
        && namespace.equals(that.namespace) && timeout.equals(that.timeout);
  }

  @Override
  public int hashCode() {
    return Objects.hash(site, dockerfile, base, repository, tags, buildArgs, executor);
  }

  /** Names the site, the source, the target and the executor; never a credential. */
  @Override
  public String toString() {
    return "inCluster(" + site.describe() + dockerfile.map(d -> ", dockerfile=" + d)
        .orElse("") + base.map(b -> ", base=" + b).orElse("")
        + repository.map(r -> " -> " + r.name()).orElse("")
        + (tags.isEmpty() ? "" : ", tags=" + tags)
        + (buildArgs.isEmpty() ? "" : ", buildArgs=" + buildArgs.keySet())
        + credentials.map(c -> ", credentials=user " + c.username()).orElse("")
        + (insecure ? ", insecure" : "") + ", executor=" + executor
        + namespace.map(n -> ", namespace=" + n).orElse("") + ")";
  }
}
