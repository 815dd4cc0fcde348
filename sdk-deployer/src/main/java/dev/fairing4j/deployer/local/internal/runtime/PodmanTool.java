package dev.fairing4j.deployer.local.internal.runtime;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.deployer.local.internal.settings.LocalException;
import dev.fairing4j.deployer.local.internal.settings.PodmanSettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The podman command line as the podman cluster uses it: the binary, the containers.conf every
 * call runs with ({@code CONTAINERS_CONF}), and the short calls around a run (image exists, pull,
 * remove, list).
 *
 * <p>Why a containers.conf of its own: where podman itself runs inside a container (CI machines,
 * these development machines) its default runtime and default ulimits make containers fail to
 * start; runc with lowered default ulimits works. The SDK writes that file into its state
 * directory unless the user names one.
 */
public final class PodmanTool {
  /** What the SDK's own containers.conf holds. */
  static final String DEFAULT_CONF = """
      # Written by fairing4j for its podman calls (Clusters.podman()); to use another file,
      # give it with PodmanCluster.containersConf(path).
      [containers]
      default_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]

      [engine]
      runtime = "runc"
      """;
  private static final String INSTALL = "apt-get install podman runc";

  private final Path binary;
  private final Path conf;

  private PodmanTool(Path binary, Path conf) {
    this.binary = binary;
    this.conf = conf;
  }

  /**
   * The podman of {@code settings}, checked to exist with runc beside it, and its containers.conf
   * (written into the state directory when the user named none).
   *
   * @throws FairingException saying {@code apt-get install podman runc} when either is missing
   */
  public static PodmanTool resolve(PodmanSettings settings) {
    Path binary = settings.podman().map(p -> {
      if (!Files.isExecutable(p)) {
        throw FairingException.of("run job with podman", p.toString(),
            "is not an executable file", INSTALL + ", or give the right path with"
                + " PodmanCluster.podman(path)", null);
      }
      return p;
    }).orElseGet(() -> HostTools.require("podman", "podman runc", ""));
    Path conf = settings.containersConf().orElseGet(() ->
        writeDefaultConf(settings.local().stateDir()));
    if (settings.containersConf().isEmpty() && HostTools.find("runc").isEmpty()) {
      // The SDK's containers.conf asks for runc.
      throw FairingException.of("run job with podman", "'runc' is not installed",
          INSTALL + ", or give a containers.conf naming another runtime with"
              + " PodmanCluster.containersConf(path)");
    }
    if (!Files.isRegularFile(conf)) {
      throw FairingException.of("run job with podman", conf.toString(),
          "the containers.conf does not exist", "create it, or leave containersConf unset to"
              + " use the SDK's own", null);
    }
    return new PodmanTool(binary, conf);
  }

  private static Path writeDefaultConf(Path stateDir) {
    Path file = stateDir.resolve("containers.conf");
    try {
      if (Files.isRegularFile(file) && Files.readString(file).equals(DEFAULT_CONF)) {
        return file;
      }
      Files.createDirectories(stateDir);
      // Written aside and moved, so a concurrent podman call never reads half a file.
      Path tmp = Files.createTempFile(stateDir, "containers.conf", ".tmp");
      Files.writeString(tmp, DEFAULT_CONF);
      try {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
      }
      return file;
    } catch (IOException e) {
      throw FairingException.of("write containers.conf", file.toString(), e.getMessage(),
          "check the permissions of " + stateDir, e);
    }
  }

  /** The podman binary. */
  public Path binary() {
    return binary;
  }

  /** The containers.conf every call uses. */
  public Path conf() {
    return conf;
  }

  /**
   * The environment of a podman process: the JVM's (podman finds its helpers, storage and
   * credentials through it) with {@code CONTAINERS_CONF}. A container sees none of it: the
   * container's variables are passed as {@code --env NAME=VALUE}.
   */
  public Map<String, String> env() {
    Map<String, String> env = new HashMap<>(System.getenv());
    env.put("CONTAINERS_CONF", conf.toString());
    return env;
  }

  /** {@code podman <args>}. */
  public List<String> command(List<String> args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(binary.toString());
    cmd.addAll(args);
    return cmd;
  }

  /** Whether {@code image} is in the local image store. */
  public boolean imageExists(String image) {
    return call(List.of("image", "exists", image), Duration.ofSeconds(60)).code() == 0;
  }

  /**
   * Pulls {@code image}; plain HTTP is allowed only for a loopback registry.
   *
   * @throws FairingException with podman's output when the pull fails
   */
  public void pull(String image) {
    List<String> args = new ArrayList<>(List.of("pull", "--quiet"));
    if (loopback(image)) {
      args.add("--tls-verify=false");
    }
    args.add(image);
    Result result = call(args, Duration.ofMinutes(30));
    if (result.code() != 0) {
      throw LocalException.exited("pull image with podman", image, result.code(),
          result.output(), loopback(image) ? "check that the registry still runs"
              : "check the image name and that podman can log in to its registry"
                  + " (podman login)");
    }
  }

  /**
   * Loads a {@code docker save} (or OCI) archive into podman's image storage; the names it
   * carries name the image there.
   *
   * @throws FairingException with podman's output when the load fails
   */
  public void load(Path archive) {
    Result result = call(List.of("load", "--quiet", "--input", archive.toString()),
        Duration.ofMinutes(30));
    if (result.code() != 0) {
      throw LocalException.exited("load image into podman", archive.toString(), result.code(),
          result.output(), "check free space in podman's storage (podman system df)");
    }
  }

  /** Removes the named containers, stopping them first without grace; missing ones are fine. */
  public void remove(Collection<String> names) {
    if (names.isEmpty()) {
      return;
    }
    List<String> args = new ArrayList<>(List.of("rm", "--force", "--ignore", "--time", "0"));
    args.addAll(names);
    call(args, Duration.ofSeconds(60));
  }

  /** The argv that removes every container labelled {@code label} ({@code key=value}). */
  public List<String> removeByLabelCommand(String label) {
    // through env(1), so the argv alone carries the containers.conf to another JVM
    return List.of("/usr/bin/env", "CONTAINERS_CONF=" + conf, binary.toString(), "rm",
        "--force", "--time", "0", "--filter", "label=" + label);
  }

  /** One line per container labelled {@code label}, in the Go template {@code format}. */
  public List<String> list(String label, String format) {
    Result result = call(List.of("ps", "--all", "--filter", "label=" + label, "--format", format),
        Duration.ofSeconds(60));
    return result.code() == 0 ? result.output().lines().filter(l -> !l.isBlank()).toList()
        : List.of();
  }

  /**
   * Runs {@code podman <args>} to the end, output captured.
   *
   * @param code the exit code; -1 when it did not finish in time or could not start
   * @param output stdout and stderr together
   */
  public record Result(int code, String output) {}

  /** Runs {@code podman <args>} and waits up to {@code timeout}. */
  public Result call(List<String> args, Duration timeout) {
    Path out = null;
    try {
      // Output to a file rather than a pipe, so a podman that hangs cannot hang the reader too.
      out = Files.createTempFile("fairing4j-podman", ".out");
      ProcessBuilder builder = new ProcessBuilder(command(args)).redirectErrorStream(true)
          .redirectOutput(out.toFile())
          .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
      builder.environment().putAll(env());
      Process process = builder.start();
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        return new Result(-1, "podman " + args + " did not finish within " + timeout);
      }
      return new Result(process.exitValue(),
          Files.readString(out, StandardCharsets.UTF_8).trim());
    } catch (IOException e) {
      return new Result(-1, e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(-1, "interrupted");
    } finally {
      if (out != null) {
        try {
          Files.deleteIfExists(out);
        } catch (IOException e) {
          // a leftover temp file is harmless
        }
      }
    }
  }

  @Override
  public String toString() {
    return binary + " (CONTAINERS_CONF=" + conf + ")";
  }

  private static boolean loopback(String image) {
    try {
      return ImageRef.parse(image).isLoopback();
    } catch (InvalidInputException e) {
      return false; // podman's own message on the pull names what is wrong with it
    }
  }
}
