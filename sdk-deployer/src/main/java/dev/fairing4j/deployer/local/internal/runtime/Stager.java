package dev.fairing4j.deployer.local.internal.runtime;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.Layer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Lays a build context out on disk the way the image would hold it: files under the working
 * directory go into the run directory at their relative paths (the run directory is then bound at
 * the working directory), files elsewhere go to their own staged copies, bound one by one at their
 * container paths.
 */
public final class Stager {
  private Stager() {}

  /**
   * A context staged on disk.
   *
   * @param runDir the directory standing in for the working directory
   * @param workingDir the container working directory it stands in for
   * @param outside files outside the working directory: staged copy and container path
   * @param requirements the staged {@code requirements.txt} of the requirements layer, if any
   * @param filesDir where the files outside the working directory are staged, at their paths
   */
  public record Staged(Path runDir, String workingDir, List<Placed> outside,
      Optional<Path> requirements, Path filesDir) {
    /** Copies the list. */
    public Staged {
      outside = List.copyOf(outside);
    }

    /**
     * The staged host directories of the container directories in {@code pythonPath}
     * ({@code PYTHONPATH} syntax) that the context fills, such as the prebuilt dependency layer:
     * what the interpreter check must count as importable.
     */
    public List<Path> hostDirs(String pythonPath) {
      List<Path> dirs = new ArrayList<>();
      for (String entry : pythonPath.split(":")) {
        if (!entry.startsWith("/")) {
          continue;
        }
        Path host = hostPath(entry, workingDir, runDir, filesDir);
        if (Files.isDirectory(host)) {
          dirs.add(host);
        }
      }
      return dirs;
    }
  }

  /**
   * One staged file bound at a container path.
   *
   * @param host the staged copy
   * @param containerPath where the container sees it
   */
  public record Placed(Path host, String containerPath) {}

  /**
   * Where container path {@code containerPath} is staged on the host: under {@code runDir} when
   * it lies in the working directory (the working directory itself is {@code runDir}), else at
   * its own path under {@code filesDir}.
   */
  private static Path hostPath(String containerPath, String workingDir, Path runDir,
      Path filesDir) {
    String prefix = workingDir.endsWith("/") ? workingDir : workingDir + "/";
    if (containerPath.equals(workingDir) || containerPath.equals(prefix)) {
      return runDir;
    }
    return containerPath.startsWith(prefix) ? runDir.resolve(containerPath.substring(
        prefix.length())) : filesDir.resolve(containerPath.substring(1));
  }

  /** Writes every file of {@code context} under {@code runDir} or {@code filesDir}. */
  public static Staged stage(BuildContext context, Path runDir, Path filesDir) {
    String workingDir = context.workingDir();
    String prefix = workingDir.endsWith("/") ? workingDir : workingDir + "/";
    List<Placed> outside = new ArrayList<>();
    Path requirements = null;
    try {
      Files.createDirectories(runDir);
      for (Map.Entry<String, ContextFile> entry : context.files().entrySet()) {
        String path = entry.getKey();
        Path target = hostPath(path, workingDir, runDir, filesDir);
        if (!path.startsWith(prefix)) {
          outside.add(new Placed(target, path));
        }
        write(entry.getValue(), target);
        // The requirements file under the working directory, whatever its name; the wrapper
        // and the prebuilt layer's copy of the set (outside it) are not one to install.
        if (entry.getValue().layer() == Layer.REQUIREMENTS && path.startsWith(prefix)
            && path.endsWith(".txt") && !path.contains("/.fairing4j")) {
          requirements = target;
        }
      }
    } catch (IOException e) {
      throw FairingException.of("stage build context", runDir.toString(), e.toString(),
          "check free disk space and permissions of the local cluster's state directory", e);
    }
    return new Staged(runDir, workingDir, outside, Optional.ofNullable(requirements), filesDir);
  }

  private static void write(ContextFile file, Path target) throws IOException {
    Files.createDirectories(target.getParent());
    try (InputStream in = file.open()) {
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
    }
    Files.setPosixFilePermissions(target,
        PosixFilePermissions.fromString(file.isExecutable() ? "rwxr-xr-x" : "rw-r--r--"));
  }
}
