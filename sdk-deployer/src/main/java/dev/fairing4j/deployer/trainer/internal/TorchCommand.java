package dev.fairing4j.deployer.trainer.internal;

import dev.fairing4j.core.InvalidInputException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The trainer command on a torch runtime. The torch plugin gives each node {@code PET_NNODES},
 * {@code PET_NPROC_PER_NODE}, {@code PET_NODE_RANK}, {@code PET_MASTER_ADDR} and
 * {@code PET_MASTER_PORT}; only {@code torchrun} reads them (and gives the script
 * {@code RANK}, {@code WORLD_SIZE}, {@code MASTER_ADDR}...). So the preprocessor's
 * {@code python -u <entry>} becomes {@code torchrun <entry>} (torchrun starts the script with
 * {@code python -u} itself); a command that already runs torchrun, or one of the user's own,
 * is left alone. A requirements wrapper before it stays in front.
 */
public final class TorchCommand {
  private TorchCommand() {}

  /** Whether {@code word} starts a torchrun ({@code torchrun} or a path ending in it). */
  static boolean isTorchrun(String word) {
    return word.equals("torchrun") || word.endsWith("/torchrun");
  }

  private static boolean isPython(String word) {
    String base = word.substring(word.lastIndexOf('/') + 1);
    return base.matches("python(3(\\.\\d+)?)?");
  }

  /** Whether {@code command} already starts its script through torchrun. */
  public static boolean runsTorchrun(List<String> command) {
    return command.stream().anyMatch(TorchCommand::isTorchrun)
        || pythonModuleRun(command).isPresent();
  }

  // python -m torch.distributed.run is torchrun by another name
  private static Optional<Integer> pythonModuleRun(List<String> command) {
    for (int i = 0; i + 2 < command.size(); i++) {
      if (isPython(command.get(i)) && command.get(i + 1).equals("-m")
          && command.get(i + 2).equals("torch.distributed.run")) {
        return Optional.of(i);
      }
    }
    return Optional.empty();
  }

  /**
   * {@code command} with its {@code python -u} replaced by {@code torchrun}; unchanged when it
   * runs torchrun already, or (unless {@code required}) when it has no {@code python -u}.
   *
   * @throws InvalidInputException when {@code required} and there is nothing to replace
   */
  public static List<String> withTorchrun(List<String> command, boolean required) {
    if (runsTorchrun(command)) {
      return command;
    }
    for (int i = 0; i + 1 < command.size(); i++) {
      if (isPython(command.get(i)) && command.get(i + 1).equals("-u")) {
        List<String> result = new ArrayList<>(command.subList(0, i));
        result.add("torchrun");
        result.addAll(command.subList(i + 2, command.size()));
        return List.copyOf(result);
      }
    }
    if (required) {
      throw InvalidInputException.of("torchrun", "the command " + command + " does not start"
          + " the script with 'python -u', so it cannot be run through torchrun",
          "start it with torchrun yourself (Preprocessors.python(..).torchrun() or"
              + " .command(\"torchrun\", ..)), or call .torchrun(false) on the deployer");
    }
    return command;
  }
}
