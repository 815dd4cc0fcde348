package dev.fairing4j.builder.internal.dockerfile;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * What a Dockerfile makes of a build context: the base it names, what the image holds and runs
 * (files, command, arguments, working directory, environment, labels), its user, ports and
 * volumes, and the instructions Jib cannot carry out, each with the reason.
 *
 * @param base the base image reference as written (variables expanded), or {@code scratch}
 * @param from the {@code FROM} instruction
 * @param context what the image holds and runs
 * @param user the {@code USER}, when set
 * @param ports the {@code EXPOSE}d ports, e.g. {@code 8080/tcp}
 * @param volumes the {@code VOLUME} paths
 * @param needsBuilder the instructions Jib cannot carry out; empty when Jib builds it all
 * @param baseVariables variables the Dockerfile reads but does not declare (from the base
 *     image's environment in Docker), each at its first use
 * @param text the Dockerfile as it was read for this plan
 * @param buildArgs the build arguments, by name
 * @param toolFiles the context a tool that runs the Dockerfile itself gets, listed on first use
 */
public record DockerfilePlan(String base, Instruction from, BuildContext context,
    Optional<String> user, List<String> ports, List<String> volumes, List<Step> needsBuilder,
    List<Step> baseVariables, String text, SortedMap<String, String> buildArgs,
    Supplier<SortedMap<String, ContextFile>> toolFiles) {

  /**
   * One instruction, and why it matters.
   *
   * @param instruction the instruction
   * @param reason why Jib cannot carry it out, or which variable it reads
   */
  public record Step(Instruction instruction, String reason) {
    /** {@code line 4: RUN pip install ... (runs a command while building)}. */
    public String describe() {
      return instruction.describe() + " (" + reason + ")";
    }
  }

  /** Copies the lists. */
  public DockerfilePlan {
    ports = List.copyOf(ports);
    volumes = List.copyOf(volumes);
    needsBuilder = List.copyOf(needsBuilder);
    baseVariables = List.copyOf(baseVariables);
    buildArgs = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(buildArgs));
  }

  /**
   * What an image built by running this Dockerfile depends on beyond the context's files: the
   * Dockerfile's text, then each build argument as {@code name=value}, sorted by name. Hashed
   * into the tag of a tool's or Kaniko's image, whose RUN steps the context does not describe.
   */
  public List<String> inputs() {
    List<String> parts = new java.util.ArrayList<>();
    parts.add(text);
    buildArgs.forEach((name, value) -> parts.add(name + "=" + value));
    return parts;
  }

  /**
   * Every file of the prepared context and of the Dockerfile's directory, by name, minus
   * {@code .dockerignore}: the context buildah, podman or Kaniko builds from.
   */
  public SortedMap<String, ContextFile> toolContext() {
    return toolFiles.get();
  }

  /** Whether Jib alone can build the image. */
  public boolean jibCanBuild() {
    return needsBuilder.isEmpty() && baseVariables.isEmpty();
  }

  /** The instructions a Jib build cannot carry out: {@link #needsBuilder}, then base reads. */
  public List<Step> beyondJib() {
    List<Step> all = new java.util.ArrayList<>(needsBuilder);
    baseVariables.forEach(step -> all.add(new Step(step.instruction(), "reads " + step.reason()
        + ", which no ARG or ENV before it declares: in Docker it comes from the base image's"
        + " environment, which a Jib build does not read")));
    return all;
  }
}
