package dev.fairing4j.builder.internal.preprocess;

import dev.fairing4j.builder.PrebuiltDependencies;
import dev.fairing4j.builder.internal.preprocess.PythonOptions.Launcher;
import dev.fairing4j.builder.internal.preprocess.PythonOptions.OutputMapping;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.Layer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns a base directory, an entry point and {@link PythonOptions} into a {@link BuildContext}:
 * checks every named path first, maps host files below the path prefix, puts requirements (and
 * the wrapper that installs them) in the requirements layer and everything else in the code layer,
 * and composes the command.
 */
public final class PythonContextBuilder {
  private static final Logger LOG = LoggerFactory.getLogger(PythonContextBuilder.class);

  private PythonContextBuilder() {}

  /** Builds the context with the default launcher ({@code python -u} or torchrun). */
  public static BuildContext build(Path baseDir, EntrySource entry, PythonOptions options) {
    return build(baseDir, entry, options, entryPath -> defaultCommand(options, entryPath));
  }

  /**
   * Builds the context; {@code launch} turns the entry's container path into the command when the
   * options name none.
   */
  public static BuildContext build(Path baseDir, EntrySource entry, PythonOptions options,
      Function<String, List<String>> launch) {
    Path base = SourceFiles.requireDirectory("baseDir", baseDir);
    String prefix = options.pathPrefix();
    SortedMap<String, ContextFile> files = new TreeMap<>();

    // Check the entry point first: it is the one input every build has.
    String entryPath;
    ContextFile entryFile;
    if (entry instanceof EntrySource.HostFile host) {
      Path file = SourceFiles.requireReadableFile("entry", base.resolve(host.file()).normalize(),
          base);
      SourceFiles.requireInside("entry", file, base);
      entryPath = ContainerPaths.join(prefix, base.relativize(file));
      entryFile = hostFile(file);
    } else {
      EntrySource.Generated generated = (EntrySource.Generated) entry;
      entryPath = ContainerPaths.join(prefix, Path.of(generated.relativePath()));
      entryFile = ContextFile.ofText(generated.content());
    }

    Optional<Path> requirements = options.requirements()
        .map(r -> SourceFiles.requireReadableFile("requirements", base.resolve(r).normalize(),
            base));
    if (options.prebuilt().isPresent() && requirements.isEmpty()) {
      throw InvalidInputException.of("requirements", "prebuildRequirements(..) has no"
          + " requirements file to install", "add .requirements(Path.of(\"requirements.txt\"))");
    }

    for (Path dir : options.directories()) {
      Path absolute = SourceFiles.requireDirectory("directories", base.resolve(dir));
      SourceFiles.requireInside("directories", absolute, base);
      for (Path file : SourceFiles.walk("directories", absolute)) {
        if (requirements.isEmpty() || !requirements.get().equals(file)) {
          files.put(ContainerPaths.join(prefix, base.relativize(file)), hostFile(file));
        }
      }
    }
    for (Path file : options.files()) {
      Path absolute = SourceFiles.requireFileInside("files", file, base);
      files.put(ContainerPaths.join(prefix, base.relativize(absolute)), hostFile(absolute));
    }
    files.put(entryPath, entryFile);

    BuildContext context = BuildContext.empty().withWorkingDir(prefix);
    List<String> wrapper = List.of();
    if (requirements.isPresent() && options.prebuilt().isPresent()) {
      String shipped = ContainerPaths.join(prefix, base.relativize(requirements.get()));
      files.remove(shipped);
      context = withPrebuilt(context, requirements.get(), options.prebuilt().get());
    } else if (requirements.isPresent()) {
      Path source = requirements.get();
      String requirementsPath = source.startsWith(base)
          ? ContainerPaths.join(prefix, base.relativize(source))
          : ContainerPaths.join(prefix, Path.of("requirements.txt"));
      if (files.remove(requirementsPath) != null) {
        LOG.info("{} is the requirements file; it goes into the requirements layer",
            requirementsPath);
      }
      context = context.withFile(requirementsPath,
          ContextFile.of(source).inLayer(Layer.REQUIREMENTS));
      if (!options.preinstalled()) {
        String bootstrapPath = ContainerPaths.join(prefix, Path.of(".fairing4j",
            RequirementsBootstrap.FILE_NAME));
        context = context.withFile(bootstrapPath,
            ContextFile.ofText(RequirementsBootstrap.script(requirementsPath))
                .inLayer(Layer.REQUIREMENTS).executable(true));
        wrapper = List.of("/bin/sh", bootstrapPath);
      }
    }

    for (OutputMapping output : options.outputs()) {
      Path source = SourceFiles.requireReadableFile("output", base.resolve(output.source())
          .normalize(), base);
      // An explicit mapping is the user's last word on that path.
      files.put(output.containerPath(), hostFile(source));
    }
    for (Map.Entry<String, ContextFile> file : files.entrySet()) {
      context = context.withFile(file.getKey(), file.getValue());
    }

    List<String> command = new ArrayList<>(wrapper);
    command.addAll(options.command().orElseGet(() -> launch.apply(entryPath)));
    command.addAll(options.args());
    context = context.withCommand(command).withEnv("PYTHONUNBUFFERED", "1");
    for (Map.Entry<String, String> variable : options.env().entrySet()) {
      context = context.withEnv(variable.getKey(), variable.getValue());
    }
    return context;
  }

  /**
   * {@code context} with the packages of {@code requirements}, installed here, in the
   * requirements layer below {@link PrebuiltDependencies#IMAGE_DIRECTORY}, which goes on
   * {@code PYTHONPATH} (an {@code env(..)} of the user's comes later and wins). The requirements
   * file goes along under another name than {@code requirements.txt}: it documents the set, and
   * a runner that installs a shipped {@code requirements.txt} (the local cluster) leaves it alone.
   */
  private static BuildContext withPrebuilt(BuildContext context, Path requirements,
      PrebuiltDependencies how) {
    Path site = PrebuiltInstall.install(requirements, how);
    BuildContext result = context;
    for (Path file : SourceFiles.walk("prebuildRequirements", site)) {
      result = result.withFile(ContainerPaths.join(PrebuiltDependencies.IMAGE_DIRECTORY,
          site.relativize(file)), hostFile(file).inLayer(Layer.REQUIREMENTS));
    }
    return result.withFile(PrebuiltDependencies.IMAGE_DIRECTORY + "/.fairing4j-requirements.txt",
            ContextFile.of(requirements).inLayer(Layer.REQUIREMENTS))
        .withEnv("PYTHONPATH", PrebuiltDependencies.IMAGE_DIRECTORY);
  }

  /** {@code python -u <entry>}, or {@code torchrun <options> <entry>}. */
  public static List<String> defaultCommand(PythonOptions options, String entryPath) {
    List<String> command = new ArrayList<>();
    if (options.launcher() == Launcher.TORCHRUN) {
      command.add("torchrun");
      command.addAll(options.launcherOptions());
    } else {
      command.add("python");
      command.add("-u");
    }
    command.add(entryPath);
    return command;
  }

  private static ContextFile hostFile(Path file) {
    return ContextFile.of(file).executable(SourceFiles.isExecutable(file));
  }
}
