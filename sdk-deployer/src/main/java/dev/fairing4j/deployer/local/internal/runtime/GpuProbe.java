package dev.fairing4j.deployer.local.internal.runtime;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Counts this machine's NVIDIA GPUs, as the scheduler counts a node's {@code nvidia.com/gpu}:
 * {@code nvidia-smi -L} when the driver tools are installed, else the {@code /dev/nvidiaN} device
 * nodes.
 */
public final class GpuProbe {
  private GpuProbe() {}

  /** The number of GPUs. */
  public static int count() {
    var smi = HostTools.find("nvidia-smi");
    if (smi.isPresent()) {
      try {
        Process p = new ProcessBuilder(smi.get().toString(), "-L").redirectErrorStream(true)
            .start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0) {
          return (int) out.lines().filter(l -> l.startsWith("GPU ")).count();
        }
        p.destroyForcibly();
      } catch (IOException e) {
        // fall back to the device nodes
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return (int) devices().stream()
        .filter(d -> d.getFileName().toString().matches("nvidia[0-9]+")).count();
  }

  /** The NVIDIA device nodes a GPU replica needs inside its sandbox. */
  public static List<Path> devices() {
    List<Path> devices = new ArrayList<>();
    try (DirectoryStream<Path> dev = Files.newDirectoryStream(Path.of("/dev"), "nvidia*")) {
      dev.forEach(devices::add);
    } catch (IOException e) {
      // no /dev listing: no devices
    }
    devices.sort(null);
    return devices;
  }
}
