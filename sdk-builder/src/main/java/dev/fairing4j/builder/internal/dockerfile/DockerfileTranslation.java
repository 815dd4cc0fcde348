package dev.fairing4j.builder.internal.dockerfile;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.fairing4j.builder.internal.Json;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.InvalidInputException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * Translates a Dockerfile and a build context into a {@link DockerfilePlan}, instruction by
 * instruction, as Docker would apply them to the base: {@code ARG} (build arguments override
 * defaults), {@code ENV}, {@code LABEL} ({@code MAINTAINER} as the {@code maintainer} label),
 * {@code WORKDIR}, {@code USER}, {@code EXPOSE}, {@code VOLUME}, {@code SHELL}, {@code CMD} and
 * {@code ENTRYPOINT} (shell forms through the shell; an {@code ENTRYPOINT} drops the base's
 * {@code CMD} unless a {@code CMD} is given), {@code COPY} and {@code ADD} of context files
 * (directories, wildcards, {@code --chmod} 644 or 755, {@code --link}). What Jib cannot do is
 * recorded, not refused: {@code RUN}, more than one stage, {@code COPY --from}, {@code --chown},
 * here-documents, {@code ADD} of a URL or of an archive, {@code HEALTHCHECK}, {@code ONBUILD},
 * {@code STOPSIGNAL}.
 *
 * <p>Without a {@code WORKDIR} the working directory is {@code /}; a base image's own
 * {@code WORKDIR} is not read. A {@code COPY} destination without a trailing {@code /} is a
 * directory when this Dockerfile made it one (a {@code WORKDIR}, an earlier {@code COPY}) or it
 * is a directory of every Linux image ({@code /opt}, {@code /usr/local/bin}, ...), else a file.
 */
public final class DockerfileTranslation {
  private static final Set<String> KNOWN = Set.of("FROM", "ARG", "ENV", "LABEL", "MAINTAINER",
      "WORKDIR", "USER", "EXPOSE", "VOLUME", "SHELL", "CMD", "ENTRYPOINT", "COPY", "ADD", "RUN",
      "HEALTHCHECK", "ONBUILD", "STOPSIGNAL");

  private final DockerfileSyntax syntax;
  private final Path directory;
  private final BuildContext prepared;
  private final Map<String, String> buildArgs;
  private final Function<String, String> outside;

  private final Map<String, String> globalArgs = new LinkedHashMap<>();
  private final Map<String, String> stageArgs = new LinkedHashMap<>();
  private final Map<String, String> env = new LinkedHashMap<>();
  private final Map<String, String> labels = new TreeMap<>();
  private final Set<String> consumedArgs = new HashSet<>();
  private final List<DockerfilePlan.Step> needsBuilder = new ArrayList<>();
  private final List<DockerfilePlan.Step> baseVariables = new ArrayList<>();
  private final Set<String> reported = new HashSet<>();
  private CopyTranslation copies;
  private List<String> shell = List.of("/bin/sh", "-c");
  private Optional<List<String>> entrypoint = Optional.empty();
  private Optional<List<String>> cmd = Optional.empty();
  private String workingDir = "/";
  private Optional<String> user = Optional.empty();
  private final Set<String> ports = new LinkedHashSet<>();
  private final Set<String> volumes = new LinkedHashSet<>();
  private String base;
  private Instruction from;
  private boolean laterStage;

  private DockerfileTranslation(DockerfileSyntax syntax, Path directory, BuildContext prepared,
      Map<String, String> buildArgs, Function<String, String> outside) {
    this.syntax = syntax;
    this.directory = directory;
    this.prepared = prepared;
    this.buildArgs = buildArgs;
    this.outside = outside;
  }

  /**
   * Reads {@code dockerfile} and translates it against {@code prepared}.
   *
   * @param outside values for variables the Dockerfile reads but does not declare, or null for
   *     none: then each such read is recorded in {@link DockerfilePlan#baseVariables}
   * @throws InvalidInputException (field {@code dockerfile} or {@code buildArg}) for a file that
   *     cannot be read, a line that cannot be, a source that is not in the context, or a build
   *     argument no {@code ARG} declares
   */
  public static DockerfilePlan of(Path dockerfile, BuildContext prepared,
      Map<String, String> buildArgs, Function<String, String> outside) {
    String text = read(dockerfile);
    try {
      DockerfileSyntax syntax = DockerfileSyntax.parse(text);
      return new DockerfileTranslation(syntax, dockerfile.toAbsolutePath().getParent(),
          prepared, buildArgs, outside).translate(text);
    } catch (DockerfileException e) {
      throw InvalidInputException.of("dockerfile", dockerfile + (e.line() > 0 ? " line "
          + e.line() : "") + ": " + e.problem(), e.fix(), e);
    } catch (java.io.UncheckedIOException e) {
      throw InvalidInputException.of("dockerfile", "cannot read the build context of "
          + dockerfile + ": " + e.getCause().getMessage(), "check the directory's permissions",
          e);
    }
  }

  /** The Dockerfile's text, or the bad-input error that says why there is none. */
  public static String read(Path dockerfile) {
    if (Files.isDirectory(dockerfile)) {
      throw InvalidInputException.of("dockerfile", "'" + dockerfile + "' is a directory",
          "give the Dockerfile itself, e.g. " + dockerfile.resolve("Dockerfile"));
    }
    if (!Files.isRegularFile(dockerfile)) {
      throw InvalidInputException.of("dockerfile", "'" + dockerfile + "' does not exist"
          + " (working directory " + Path.of("").toAbsolutePath() + ")",
          "give the path of an existing Dockerfile, e.g. Path.of(\"Dockerfile\") from the"
              + " directory that holds it");
    }
    try {
      return Files.readString(dockerfile, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw InvalidInputException.of("dockerfile", "cannot read '" + dockerfile + "': "
          + e.getMessage(), "check the file's permissions", e);
    }
  }

  private DockerfilePlan translate(String text) {
    ContextView view = ContextView.of(prepared, directory, DockerIgnore.in(directory));
    copies = new CopyTranslation(view);
    for (Instruction instruction : syntax.instructions()) {
      if (!KNOWN.contains(instruction.keyword())) {
        throw new DockerfileException(instruction.line(), "'" + instruction.keyword()
            + "' is not a Dockerfile instruction", "check the spelling; the instructions are "
            + String.join(", ", new java.util.TreeSet<>(KNOWN)));
      }
      if (from == null && !instruction.keyword().equals("FROM")
          && !instruction.keyword().equals("ARG")) {
        throw new DockerfileException(instruction.line(), instruction.keyword()
            + " comes before FROM", "start the Dockerfile with FROM <base image> (only ARG may"
            + " come before it)");
      }
      if (laterStage) {
        continue;  // a later stage is a builder's work; the first FROM already said so
      }
      apply(instruction);
    }
    if (from == null) {
      throw new DockerfileException(0, "has no FROM instruction",
          "start it with FROM <base image>, e.g. FROM python:3.11-slim");
    }
    for (String name : buildArgs.keySet()) {
      if (!consumedArgs.contains(name)) {
        throw InvalidInputException.of("buildArg", "'" + name + "' is declared by no ARG in the"
            + " Dockerfile", "check the name, or declare it with ARG " + name);
      }
    }
    BuildContext context = BuildContext.empty().withWorkingDir(workingDir)
        .withCommand(entrypoint.orElse(List.of())).withArgs(cmd.orElse(List.of()));
    for (Map.Entry<String, ContextFile> file : copies.files().entrySet()) {
      context = context.withFile(file.getKey(), file.getValue());
    }
    for (Map.Entry<String, String> variable : env.entrySet()) {
      context = context.withEnv(variable.getKey(), variable.getValue());
    }
    Map<String, String> allLabels = new TreeMap<>(prepared.labels());
    allLabels.putAll(labels);
    for (Map.Entry<String, String> label : allLabels.entrySet()) {
      context = context.withLabel(label.getKey(), label.getValue());
    }
    return new DockerfilePlan(base, from, context, user, List.copyOf(ports),
        List.copyOf(volumes), needsBuilder, baseVariables, text, new TreeMap<>(buildArgs),
        view::listing);
  }

  private void apply(Instruction at) {
    String args = at.arguments();
    switch (at.keyword()) {
      case "FROM" -> from(at);
      case "ARG" -> arg(at);
      case "ENV" -> pairs(at, true).forEach(env::put);
      case "LABEL" -> labels.putAll(pairs(at, false));
      case "MAINTAINER" -> labels.put("maintainer", args);
      case "WORKDIR" -> {
        String dir = words(at).word(args);
        workingDir = absolute(dir.isEmpty() ? "/" : dir);
        copies.directory(workingDir);
      }
      case "USER" -> user = Optional.of(words(at).word(args));
      case "EXPOSE" -> expose(at);
      case "VOLUME" -> json(args).orElseGet(() -> words(at).words(args))
          .forEach(path -> volumes.add(absolute(path)));
      case "SHELL" -> shell = json(args).filter(list -> !list.isEmpty()).orElseThrow(() ->
          new DockerfileException(at.line(), "SHELL takes the JSON form",
              "write SHELL [\"/bin/bash\", \"-c\"]"));
      case "CMD" -> cmd = Optional.of(commandOf(args));
      case "ENTRYPOINT" -> {
        entrypoint = Optional.of(commandOf(args));
        if (cmd.isEmpty()) {
          cmd = Optional.of(List.of());  // as Docker: the base's CMD does not follow
        }
      }
      case "COPY", "ADD" -> copy(at);
      case "RUN" -> builder(at, "runs a command while building");
      default -> builder(at, "Jib cannot set " + at.keyword() + " in an image");
    }
  }

  private void from(Instruction at) {
    if (from != null) {
      builder(at, "a second FROM starts another stage (a multi-stage build)");
      laterStage = true;
      return;
    }
    List<String> words = new ShellWords(syntax.escape(), globalArgs::get, at.line())
        .words(at.arguments());
    List<String> rest = new ArrayList<>();
    for (String word : words) {
      if (word.startsWith("--platform=")) {
        String platform = word.substring("--platform=".length());
        if (!platform.equals("linux/amd64")) {
          builder(at, "builds for " + platform + ", and the Jib path builds for linux/amd64");
        }
      } else if (word.startsWith("--")) {
        builder(at, "the flag " + word + " is not one the Jib path reads");
      } else {
        rest.add(word);
      }
    }
    if (rest.isEmpty() || (rest.size() != 1 && !(rest.size() == 3
        && rest.get(1).equalsIgnoreCase("AS")))) {
      throw new DockerfileException(at.line(), "FROM takes one image, optionally with AS"
          + " <name>", "write FROM python:3.11-slim (or FROM python:3.11-slim AS train)");
    }
    from = at;
    base = rest.get(0);
  }

  private void arg(Instruction at) {
    for (String raw : ShellWords.rawWords(at.arguments(), syntax.escape())) {
      int equals = raw.indexOf('=');
      String name = equals < 0 ? raw : raw.substring(0, equals);
      if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
        throw new DockerfileException(at.line(), "'" + name + "' is not an ARG name",
            "write ARG NAME or ARG NAME=default");
      }
      consumedArgs.add(name);
      String value;
      if (buildArgs.containsKey(name)) {
        value = buildArgs.get(name);
      } else if (equals >= 0) {
        value = words(at).word(raw.substring(equals + 1));
      } else {
        value = from == null ? null : globalArgs.get(name);  // a stage inherits a global's value
      }
      Map<String, String> scope = from == null ? globalArgs : stageArgs;
      if (value == null) {
        scope.remove(name);
        scope.put(name, null);
      } else {
        scope.put(name, value);
      }
    }
  }

  /** {@code ENV}'s or {@code LABEL}'s pairs, values processed, in order. */
  private Map<String, String> pairs(Instruction at, boolean legacyForm) {
    List<String> raw = ShellWords.rawWords(at.arguments(), syntax.escape());
    Map<String, String> pairs = new LinkedHashMap<>();
    if (raw.isEmpty()) {
      throw new DockerfileException(at.line(), at.keyword() + " has no arguments",
          "write " + at.keyword() + " NAME=value");
    }
    if (!raw.get(0).contains("=")) {
      if (!legacyForm || raw.size() < 2) {
        throw new DockerfileException(at.line(), at.keyword() + " needs NAME=value",
            "write " + at.keyword() + " NAME=value");
      }
      // ENV NAME value with spaces: the rest of the line is the value.
      String name = raw.get(0);
      String value = at.arguments().substring(at.arguments().indexOf(name) + name.length())
          .strip();
      pairs.put(name, words(at).word(value));
      return pairs;
    }
    ShellWords words = words(at);
    for (String pair : raw) {
      int equals = pair.indexOf('=');
      if (equals <= 0) {
        throw new DockerfileException(at.line(), "'" + pair + "' is not NAME=value",
            "write every pair of " + at.keyword() + " as NAME=value (quote values with"
                + " spaces)");
      }
      String name = words.word(pair.substring(0, equals));
      String value = words.word(pair.substring(equals + 1));
      // A later pair of the same line does not see it: Docker expands the line first.
      pairs.put(name, value);
    }
    return pairs;
  }

  private void expose(Instruction at) {
    for (String word : words(at).words(at.arguments())) {
      String port = word.toLowerCase(Locale.ROOT);
      if (!port.matches("\\d+(-\\d+)?(/(tcp|udp))?")) {
        throw new DockerfileException(at.line(), "'" + word + "' is not a port",
            "write EXPOSE 8080, EXPOSE 8080/udp or EXPOSE 8000-8010");
      }
      ports.add(port.contains("/") ? port : port + "/tcp");
    }
  }

  private List<String> commandOf(String args) {
    return json(args).orElseGet(() -> {
      List<String> command = new ArrayList<>(shell);
      command.add(args);
      return command;
    });
  }

  private void copy(Instruction at) {
    if (!at.heredocs().isEmpty()) {
      builder(at, "copies a here-document");
      return;
    }
    ShellWords words = words(at);
    copies.apply(at, json(at.arguments()).orElseGet(() -> words.words(at.arguments())),
        workingDir).ifPresent(reason -> builder(at, reason));
  }

  /** {@code path} made absolute against the working directory, cleaned. */
  private String absolute(String path) {
    return CopyTranslation.absolute(path, workingDir);
  }

  private ShellWords words(Instruction at) {
    return new ShellWords(syntax.escape(), name -> lookup(name, at), at.line());
  }

  private String lookup(String name, Instruction at) {
    if (env.containsKey(name)) {
      return env.get(name);
    }
    if (stageArgs.containsKey(name)) {
      return stageArgs.get(name);
    }
    if (outside != null) {
      return outside.apply(name);
    }
    if (reported.add(at.line() + ":" + name)) {
      baseVariables.add(new DockerfilePlan.Step(at, "$" + name));
    }
    return null;
  }

  private void builder(Instruction at, String reason) {
    needsBuilder.add(new DockerfilePlan.Step(at, reason));
  }

  /** The JSON form's list, when {@code args} is one. */
  private static Optional<List<String>> json(String args) {
    String trimmed = args.strip();
    if (!trimmed.startsWith("[")) {
      return Optional.empty();
    }
    try {
      JsonNode node = Json.MAPPER.readTree(trimmed);
      if (!node.isArray()) {
        return Optional.empty();
      }
      List<String> list = new ArrayList<>();
      for (JsonNode element : node) {
        if (!element.isTextual()) {
          return Optional.empty();
        }
        list.add(element.asText());
      }
      return Optional.of(list);
    } catch (JsonProcessingException e) {
      return Optional.empty();  // Docker then reads it as the shell form
    }
  }
}
