import java.io.File;
import java.io.IOException;
import java.lang.reflect.Field;
import java.net.URI;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import jdk.jshell.tool.JavaShellToolBuilder;

/**
 * The {@code jshell} tool, with the javadoc of the class path's libraries on Tab (scripts/jshell.sh
 * runs it: {@code java --add-opens jdk.jshell/jdk.jshell=ALL-UNNAMED JShellWithSources.java
 * --class-path CP [jshell options and scripts]}).
 *
 * <p>JDK 17's JShell reads documentation only from the JDK's own {@code lib/src.zip}: sources on
 * the class path, or jars of them, are not looked at (JDK-8186876 adds that to a later JDK, from a
 * {@code NAME-sources.jar} beside each {@code NAME.jar}). This sets the engine's source locations
 * to the JDK's {@code src.zip} (when installed) and, for every class path entry, the
 * {@code NAME-sources.jar} beside a {@code NAME.jar} or the {@code src/main/java} of a Maven
 * {@code target/classes}; then it runs the tool. On a JDK whose engine lacks the field it sets,
 * the tool runs as plain {@code jshell} does.
 */
public class JShellWithSources {
  public static void main(String[] args) throws Exception {
    List<Path> sources = new ArrayList<>(jdkSources());
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].equals("--class-path") || args[i].equals("-cp")
          || args[i].equals("-classpath")) {
        sources.addAll(sourcesOf(args[i + 1]));
      }
    }
    try {
      Field override = Class.forName("jdk.jshell.SourceCodeAnalysisImpl")
          .getDeclaredField("availableSourcesOverride");
      override.setAccessible(true);
      override.set(null, sources);
    } catch (ReflectiveOperationException | RuntimeException e) {
      System.err.println("jshell: no documentation of the class path on Tab (" + e + ")");
    }
    System.exit(JavaShellToolBuilder.builder().start(args));
  }

  /** The source locations of a class path: sources jars beside jars, sources of Maven classes. */
  static List<Path> sourcesOf(String classPath) {
    List<Path> sources = new ArrayList<>();
    for (String entry : classPath.split(File.pathSeparator)) {
      if (entry.isBlank()) {
        continue;
      }
      Path path = Path.of(entry).toAbsolutePath().normalize();
      String name = path.getFileName() == null ? "" : path.getFileName().toString();
      Path source = null;
      if (name.endsWith(".jar")) {
        source = path.resolveSibling(name.substring(0, name.length() - 4) + "-sources.jar");
      } else if (name.equals("classes") && path.getParent() != null
          && path.getParent().getParent() != null) {
        source = path.getParent().getParent().resolve("src/main/java");
      }
      if (source != null && Files.exists(source)) {
        sources.add(source);
      }
    }
    return sources;
  }

  /** What JShell itself reads: the JDK's src.zip, module by module in a modular one. */
  private static List<Path> jdkSources() {
    Path home = Path.of(System.getProperty("java.home"));
    Path srcZip = home.resolve("lib/src.zip");
    if (!Files.isReadable(srcZip)) {
      srcZip = home.getParent().resolve("src.zip");
    }
    if (!Files.isReadable(srcZip)) {
      return List.of();
    }
    try {
      // Kept open: the engine reads from it for the whole session.
      FileSystem zip = FileSystems.newFileSystem(URI.create("jar:" + srcZip.toUri()), Map.of());
      Path root = zip.getRootDirectories().iterator().next();
      if (Files.exists(root.resolve("java/lang/Object.java"))) {
        return List.of(srcZip);
      }
      List<Path> modules = new ArrayList<>();
      try (DirectoryStream<Path> directories = Files.newDirectoryStream(root)) {
        for (Path module : directories) {
          if (Files.isDirectory(module)) {
            modules.add(module);
          }
        }
      }
      return modules;
    } catch (IOException | RuntimeException e) {
      return List.of();
    }
  }
}
