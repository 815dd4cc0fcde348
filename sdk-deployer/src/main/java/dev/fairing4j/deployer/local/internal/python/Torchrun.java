package dev.fairing4j.deployer.local.internal.python;

/**
 * How the local cluster starts {@code torchrun}: {@code <python> -c <}{@link #PROGRAM}{@code >
 * <args>}, so it runs with the chosen interpreter, whatever {@code torchrun} is first on the
 * PATH.
 *
 * <p>The program carries one repair. Debian 12's {@code python3-torch} (1.13) cannot start any
 * torchrun on its Python 3.11: its {@code Std.from_str("0")}, which parses the default
 * {@code --redirects}/{@code --tee}, looks the value up by iterating the {@code IntFlag}, and
 * since Python 3.11 that iteration skips the zero flag, so it returns None and torchrun dies
 * with "'NoneType' object has no attribute 'get'". PyTorch 2.0 fixed it upstream
 * ({@code Std(int(v))}); the program applies the same fix only where {@code from_str("0")} is
 * None, and leaves a working torch untouched. (The cluster suite's torch base image, made from
 * the same Debian torch, carries it as its {@code torchrun}.)
 */
public final class Torchrun {
  /** Python that repairs a broken {@code Std.from_str} if needed, then runs torchrun's main. */
  public static final String PROGRAM = String.join("\n",
      "import re",
      "from torch.distributed.elastic.multiprocessing import api",
      "if api.Std.from_str('0') is None:",
      "    def from_str(vm, original=api.Std.from_str):",
      "        if re.fullmatch(r'[0-3]', vm):",
      "            return api.Std(int(vm))",
      "        if re.fullmatch(r'([0-9]+:[0-3],)*[0-9]+:[0-3]', vm):",
      "            return {int(i): api.Std(int(v))",
      "                    for i, v in (m.split(':') for m in vm.split(','))}",
      "        return original(vm)",
      "    api.Std.from_str = from_str",
      "from torch.distributed.run import main",
      "main()",
      "");

  private Torchrun() {}
}
