package dev.fairing4j.deployer.local.internal.runtime;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.internal.JvmWide;
import dev.fairing4j.deployer.local.internal.settings.LocalException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Finds the tools a sandbox needs and checks once per JVM that bubblewrap can actually create its
 * namespaces here (some containers and hardened kernels forbid it), so the user reads why at
 * submit rather than in every replica's log.
 */
public final class SandboxCheck {
  @JvmWide(why = "a fact of this machine's kernel, checked once",
      bound = "one flag")
  private static volatile boolean bwrapWorks;

  private SandboxCheck() {}

  public static Sandbox sandbox(boolean isolate) {
    Path setsid = HostTools.require("setsid", "util-linux", "");
    if (!isolate) {
      return new Unsandboxed(setsid, HostTools.require("setpriv", "util-linux", ""));
    }
    Path bwrap = HostTools.require("bwrap", "bubblewrap",
        "run without a sandbox with LocalCluster.withoutSandbox() (container paths are then"
            + " not isolated)");
    if (!bwrapWorks) {
      check(bwrap);
      bwrapWorks = true;
    }
    return new Bubblewrap(bwrap, setsid);
  }

  private static void check(Path bwrap) {
    try {
      Process p = new ProcessBuilder(bwrap.toString(), "--unshare-pid", "--ro-bind", "/", "/",
          "--proc", "/proc", "--dev", "/dev", "true").redirectErrorStream(true).start();
      p.getOutputStream().close();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw FairingException.of("run job locally", "bwrap did not start within 30 s",
            "check bubblewrap, or use LocalCluster.withoutSandbox()");
      }
      if (p.exitValue() != 0) {
        throw LocalException.exited("start the bubblewrap sandbox", bwrap.toString(),
            p.exitValue(), out, "allow unprivileged user namespaces (sysctl"
                + " kernel.unprivileged_userns_clone=1), or use LocalCluster.withoutSandbox()");
      }
    } catch (IOException e) {
      throw FairingException.of("run job locally", bwrap.toString(), e.getMessage(),
          "reinstall bubblewrap, or use LocalCluster.withoutSandbox()", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw FairingException.of("run job locally", "interrupted while checking bwrap",
          "run it again");
    }
  }
}
