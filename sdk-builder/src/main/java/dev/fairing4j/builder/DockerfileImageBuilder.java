package dev.fairing4j.builder;

import dev.fairing4j.builder.internal.dockerfile.BuildTools;
import dev.fairing4j.builder.internal.dockerfile.DockerfilePlan;
import dev.fairing4j.builder.internal.dockerfile.DockerfileTranslation;
import dev.fairing4j.builder.internal.dockerfile.ToolBuild;
import dev.fairing4j.builder.internal.image.BaseImage;
import dev.fairing4j.builder.internal.image.BuildSettings;
import dev.fairing4j.builder.internal.image.ImageBuildRun;
import dev.fairing4j.builder.internal.image.LocalStoreBuild;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ImageBuilder;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.LocalImageStore;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.RegistryCredentials;
import dev.fairing4j.core.Secret;
import dev.fairing4j.core.internal.GuardedListener;
import dev.fairing4j.core.internal.Validators;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Builds the image a Dockerfile describes, from the pipeline's build context: Kubeflow Fairing's
 * {@code docker} builder, without a Docker daemon. Create one with
 * {@link Builders#dockerfile(Path)}; it is an immutable value with the same target, credential,
 * TLS and cache options as {@link JibImageBuilder}, and gives the same {@link ImageRef} out.
 *
 * <p>The build context is the preprocessor's files, named relative to its working directory (so
 * {@code COPY train.py /app/} copies the script {@code Preprocessors.python(Path.of("train.py"))}
 * took), then the files of the Dockerfile's own directory that the preprocessor did not name;
 * {@code .dockerignore} there leaves paths out of both. A source outside that is refused with the
 * instruction's line.
 *
 * <p>A Dockerfile without {@code RUN} ({@code FROM}, {@code ARG}, {@code ENV}, {@code LABEL},
 * {@code WORKDIR}, {@code USER}, {@code EXPOSE}, {@code VOLUME}, {@code SHELL}, {@code CMD},
 * {@code ENTRYPOINT}, {@code COPY} and {@code ADD} of context files, continuation lines and JSON
 * forms) is built by Jib itself: no tool needed, every timestamp fixed so the same inputs give
 * the same digest, the same up-to-date check and edit loop as {@link JibImageBuilder}. Anything
 * Jib cannot do ({@code RUN}, a second stage, {@code COPY --from} or {@code --chown}, {@code ADD}
 * of a URL or an archive, {@code HEALTHCHECK}, a variable only the base image's environment sets)
 * is built by buildah or podman, whichever this machine has ({@link #tool} chooses): daemonless,
 * with chroot isolation, the tool's layer cache (a changed file rebuilds from the step that
 * copies it) and fixed timestamps, pushed with the same credentials, TLS rules and CAs. Which
 * built it is said in the progress; where neither is installed the build fails before any work,
 * naming the ways to get one.
 *
 * <p>What the job runs comes from the Dockerfile, not the preprocessor: its files,
 * {@code ENTRYPOINT} as the command and {@code CMD} as the arguments (a deployer's
 * {@code args(..)} replace {@code CMD}, as a pod's do), its {@code WORKDIR} ({@code /} when it
 * sets none: a base image's own {@code WORKDIR} is not read), {@code ENV} and {@code LABEL}. On
 * {@code Clusters.local()}, which runs that without an image, the base image's files and
 * environment are this machine's.
 */
public final class DockerfileImageBuilder implements ImageBuilder {
  /** The label that ties a tool-built image's tag to its Dockerfile's text and arguments. */
  private static final String DOCKERFILE_LABEL = "dev.fairing4j.builder.dockerfile";

  private final Path dockerfile;
  private final JibImageBuilder jib;
  private final Map<String, String> buildArgs;
  private final DockerfileTool tool;

  private DockerfileImageBuilder(Path dockerfile, JibImageBuilder jib,
      Map<String, String> buildArgs, DockerfileTool tool) {
    this.dockerfile = dockerfile;
    this.jib = jib;
    this.buildArgs = Collections.unmodifiableMap(new LinkedHashMap<>(buildArgs));
    this.tool = tool;
  }

  static DockerfileImageBuilder of(Path dockerfile) {
    Path absolute = Objects.requireNonNull(dockerfile, "dockerfile").toAbsolutePath()
        .normalize();
    DockerfileTranslation.read(absolute);
    return new DockerfileImageBuilder(absolute, Builders.scratch(), Map.of(),
        DockerfileTool.AUTO);
  }

  /** The Dockerfile this builder reads. */
  public Path dockerfile() {
    return dockerfile;
  }

  /**
   * A build argument, as {@code docker build --build-arg NAME=value}: the value of
   * {@code ARG NAME}. A name no {@code ARG} declares is refused when the build is checked.
   */
  public DockerfileImageBuilder buildArg(String name, String value) {
    Validators.requireText("buildArg", name);
    Objects.requireNonNull(value, "buildArg value");
    Map<String, String> all = new LinkedHashMap<>(buildArgs);
    all.put(name.trim(), value);
    return new DockerfileImageBuilder(dockerfile, jib, all, tool);
  }

  /**
   * What builds the image: {@link DockerfileTool#AUTO} (the default) lets Jib build what it can
   * and buildah or podman, whichever the machine has, the rest; {@code BUILDAH} or
   * {@code PODMAN} always use that tool (exact Docker semantics, such as a base image's
   * {@code WORKDIR}); {@code JIB} refuses what Jib cannot do.
   */
  public DockerfileImageBuilder tool(DockerfileTool newTool) {
    return new DockerfileImageBuilder(dockerfile, jib, buildArgs,
        Objects.requireNonNull(newTool, "tool"));
  }

  /** Pushes to {@code repository}, as {@link JibImageBuilder#pushTo}. */
  public DockerfileImageBuilder pushTo(String repository) {
    return with(jib.pushTo(repository));
  }

  /** Writes the image to a tar file instead of pushing, as {@link JibImageBuilder#toTar}. */
  public DockerfileImageBuilder toTar(Path tarFile) {
    return with(jib.toTar(tarFile));
  }

  /** Docker (default) or OCI manifests. */
  public DockerfileImageBuilder format(ImageFormat format) {
    return with(jib.format(format));
  }

  /** Tags pushed besides the content tag, as {@link JibImageBuilder#tags}. */
  public DockerfileImageBuilder tags(String... tags) {
    return with(jib.tags(tags));
  }

  /** Credentials for the target registry, as {@link JibImageBuilder#credentials}. */
  public DockerfileImageBuilder credentials(String username, Secret password) {
    return with(jib.credentials(username, password));
  }

  /** Credentials for the {@code FROM} image's registry. */
  public DockerfileImageBuilder baseCredentials(String username, Secret password) {
    return with(jib.baseCredentials(username, password));
  }

  /** Target credentials read from two environment variables when the build runs. */
  public DockerfileImageBuilder credentialsFromEnvironment(String userVariable,
      String passwordVariable) {
    return with(jib.credentialsFromEnvironment(userVariable, passwordVariable));
  }

  /** Falls back to Docker's {@code ~/.docker/config.json}, as {@code JibImageBuilder}'s. */
  public DockerfileImageBuilder dockerConfig() {
    return with(jib.dockerConfig());
  }

  /** Allows plain HTTP and unverified TLS, as {@link JibImageBuilder#allowInsecure}. */
  public DockerfileImageBuilder allowInsecure() {
    return with(jib.allowInsecure());
  }

  /** Trusts these CA certificates, as {@link JibImageBuilder#trustedCertificates}. */
  public DockerfileImageBuilder trustedCertificates(Path... pemFiles) {
    return with(jib.trustedCertificates(pemFiles));
  }

  /** Where base layers are cached, as {@link JibImageBuilder#baseLayerCache}. */
  public DockerfileImageBuilder baseLayerCache(Path directory) {
    return with(jib.baseLayerCache(directory));
  }

  /** {@inheritDoc} The Dockerfile's files, command, arguments, working directory, env, labels. */
  @Override
  public BuildContext imageContext(BuildContext prepared) {
    return plan(prepared).context();
  }

  /**
   * {@inheritDoc}
   *
   * <p>Variables the Dockerfile reads but does not declare come from this machine's environment
   * (it stands in for the base image); a Dockerfile without {@code WORKDIR} runs in
   * {@code /app}, not in {@code /}.
   */
  @Override
  public BuildContext directContext(BuildContext prepared) {
    DockerfilePlan plan = DockerfileTranslation.of(dockerfile, prepared, buildArgs,
        System::getenv);
    if (!plan.needsBuilder().isEmpty()) {
      DockerfilePlan.Step step = plan.needsBuilder().get(0);
      throw InvalidInputException.of("dockerfile", dockerfile + " " + step.describe()
          + ": a cluster that runs the build context without an image (Clusters.local())"
          + " cannot take this step", "deploy on Clusters.podman() or a Kubernetes cluster,"
          + " where the image is built, or remove the line");
    }
    BuildContext context = plan.context();
    if (context.command().isEmpty() && context.args().isEmpty()) {
      throw InvalidInputException.of("dockerfile", dockerfile + " sets neither CMD nor"
          + " ENTRYPOINT, and without the base image there is no command to run",
          "add CMD [\"python\", \"/app/train.py\"] (or the script's own path)");
    }
    return context.workingDir().equals("/")
        ? context.withWorkingDir(BuildContext.DEFAULT_WORKING_DIR) : context;
  }

  @Override
  public ImageRef plannedImage(BuildContext context) {
    DockerfilePlan plan = plan(context);
    return run(plan).planned(viaTool(plan) ? toolTagged(plan) : plan.context());
  }

  private boolean viaTool(DockerfilePlan plan) {
    return tool == DockerfileTool.BUILDAH || tool == DockerfileTool.PODMAN
        || (tool == DockerfileTool.AUTO && !plan.jibCanBuild());
  }

  /**
   * The plan's context with a label over the Dockerfile's text and build arguments: a tool's
   * image also holds what RUN steps made, which the context alone does not describe, so its
   * content tag must change with them.
   */
  private BuildContext toolTagged(DockerfilePlan plan) {
    List<String> parts = new java.util.ArrayList<>(List.of("tool"));
    parts.addAll(plan.inputs());
    return plan.context().withLabel(DOCKERFILE_LABEL, "sha256:"
        + dev.fairing4j.core.internal.Sha256.ofParts(parts));
  }

  /**
   * {@inheritDoc}
   *
   * @throws InvalidInputException (field {@code dockerfile}) for a Dockerfile that cannot be
   *     read, names a file outside the context, or holds a step Jib cannot take where no tool
   *     that can is chosen or installed
   */
  @Override
  public void validate(BuildContext context) {
    DockerfilePlan plan = plan(context);
    choose(plan);
    run(plan).validate(plan.context());
  }

  /**
   * {@inheritDoc}
   *
   * <p>A listener that throws is logged once and otherwise ignored.
   */
  @Override
  public ImageRef build(BuildContext context, ProgressListener progress) {
    ProgressListener guarded = GuardedListener.guard(Objects.requireNonNull(progress,
        "progress"));
    DockerfilePlan plan = plan(context);
    Optional<ToolBuild> chosen = choose(plan);
    if (chosen.isEmpty()) {
      guarded.onEvent(new ProgressEvent.Note(dockerfile.getFileName() + ": " + plan.from()
          .describe() + "; built by Jib (no step needs a container)"));
      return run(plan).build(plan.context(), guarded);
    }
    ImageBuildRun run = run(plan);
    BuildContext tagged = toolTagged(plan);
    run.validate(tagged);
    guarded.onEvent(new ProgressEvent.Note(dockerfile.getFileName() + ": built by "
        + chosen.get().tool() + (plan.jibCanBuild() ? " (chosen)" : " (" + plan.beyondJib()
        .get(0).describe() + " needs it)")));
    return chosen.get().build(dockerfile, plan, settings(plan), run.planned(tagged),
        System.getenv(), guarded);
  }

  /**
   * The tool that builds {@code plan}, or empty for Jib.
   *
   * @throws InvalidInputException when the chosen way cannot build it
   */
  private Optional<ToolBuild> choose(DockerfilePlan plan) {
    String path = System.getenv("PATH");
    switch (tool) {
      case JIB -> {
        jibPlan(plan);
        return Optional.empty();
      }
      case BUILDAH, PODMAN -> {
        String name = tool.name().toLowerCase(java.util.Locale.ROOT);
        return Optional.of(new ToolBuild(name, BuildTools.find(name, path).orElseThrow(() ->
            InvalidInputException.of("tool", name + " is not on PATH (" + path + ")",
                "install it (apt-get install " + name + "), or use DockerfileTool.AUTO"))));
      }
      default -> {
        if (plan.jibCanBuild()) {
          return Optional.empty();
        }
        for (String name : List.of("buildah", "podman")) {
          Optional<Path> found = BuildTools.find(name, path);
          if (found.isPresent()) {
            return Optional.of(new ToolBuild(name, found.get()));
          }
        }
        List<DockerfilePlan.Step> steps = plan.beyondJib();
        throw InvalidInputException.of("dockerfile", dockerfile + " " + steps.get(0).describe()
            + more(steps) + ": this needs a builder that runs containers, and neither buildah"
            + " nor podman is on PATH", "install one (apt-get install buildah, or podman),"
            + " build inside the cluster with Builders.inCluster(Clusters.kubernetes())"
            + ".dockerfile(..), or rewrite the step without it (install packages in a base"
            + " image you build once)");
      }
    }
  }

  private static String more(List<DockerfilePlan.Step> steps) {
    return steps.size() > 1 ? " and " + (steps.size() - 1) + " more step"
        + (steps.size() > 2 ? "s" : "") + " (" + steps.subList(1, steps.size()).stream()
        .map(s -> "line " + s.instruction().line()).collect(Collectors.joining(", ")) + ")"
        : "";
  }

  /** Whether a target is named, as {@link JibImageBuilder#hasTarget()}. */
  @Override
  public boolean hasTarget() {
    return jib.hasTarget();
  }

  /**
   * This builder writing into {@code store} ({@code Clusters.podman()}'s image storage), as
   * {@link JibImageBuilder#intoLocalStore}: the Dockerfile's image is loaded there and runs from
   * there.
   */
  @Override
  public ImageBuilder intoLocalStore(LocalImageStore store) {
    return new LocalStoreBuild(this, this::toTar, Objects.requireNonNull(store, "store"));
  }

  /** The target registry's credentials for the cluster, as {@link JibImageBuilder}'s. */
  @Override
  public Optional<RegistryCredentials> pullCredentials() {
    return jib.pullCredentials();
  }

  private DockerfilePlan plan(BuildContext prepared) {
    return DockerfileTranslation.of(dockerfile, prepared, buildArgs, null);
  }

  private void jibPlan(DockerfilePlan plan) {
    if (!plan.jibCanBuild()) {
      List<DockerfilePlan.Step> steps = plan.beyondJib();
      throw InvalidInputException.of("dockerfile", dockerfile + " " + steps.get(0).describe()
          + more(steps) + ": Jib cannot build this, and this builder was told to use Jib"
          + " (DockerfileTool.JIB)", "use DockerfileTool.AUTO with buildah (apt-get install"
          + " buildah) or podman on this machine, build inside the cluster"
          + " (Builders.inCluster(Clusters.kubernetes()).dockerfile(..)), or rewrite the"
          + " step without it (install packages in a base image you build once)");
    }
  }

  private ImageBuildRun run(DockerfilePlan plan) {
    return new ImageBuildRun(settings(plan), System.getenv());
  }

  private BuildSettings settings(DockerfilePlan plan) {
    BuildSettings settings = jib.settings().withBase(base(plan))
        .withPortsAndVolumes(plan.ports(), plan.volumes());
    return plan.user().isPresent() ? settings.withUser(plan.user().get()) : settings;
  }

  private BaseImage base(DockerfilePlan plan) {
    if (plan.base().equals("scratch")) {
      return new BaseImage.Scratch();
    }
    try {
      return new BaseImage.FromRegistry(JibImageBuilder.parse("dockerfile", plan.base()));
    } catch (InvalidInputException e) {
      throw InvalidInputException.of("dockerfile", dockerfile + " " + plan.from().describe()
          + ": " + e.getMessage().replaceFirst("^validate dockerfile failed: ", "")
          .replaceFirst(" \\(fix: .*\\)$", ""), e.fix(), e);
    }
  }

  private DockerfileImageBuilder with(JibImageBuilder newJib) {
    return new DockerfileImageBuilder(dockerfile, newJib, buildArgs, tool);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof DockerfileImageBuilder that && dockerfile.equals(that.dockerfile)
        && jib.equals(that.jib) && buildArgs.equals(that.buildArgs) && tool == that.tool;
  }

  @Override
  public int hashCode() {
    return Objects.hash(dockerfile, jib, buildArgs, tool);
  }

  /** Names the Dockerfile, the target and the build argument names; never a credential. */
  @Override
  public String toString() {
    String settings = jib.toString().replaceFirst("^jib\\(scratch", "");
    return "dockerfile(" + dockerfile + settings.substring(0, settings.length() - 1)
        + (buildArgs.isEmpty() ? "" : ", buildArgs=" + buildArgs.keySet())
        + (tool == DockerfileTool.AUTO ? "" : ", tool=" + tool.name().toLowerCase(
            java.util.Locale.ROOT)) + ")";
  }
}
