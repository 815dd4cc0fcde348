package dev.fairing4j.core.internal;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Recognises, in a failed replica's last lines, the failures whose cause is the environment the
 * script expected rather than its code, and says that cause and the fix in a sentence: a script
 * that calls CUDA where its replica sees no GPU (torch's own error names an internal function,
 * {@code _cuda_setDevice}), and one that reads torchrun's variables ({@code LOCAL_RANK},
 * {@code LOCAL_WORLD_SIZE}) under a PyTorchJob started without torchrun, where the operator does
 * not set them.
 */
public final class ScriptFailures {
  private static final Pattern NO_GPU = Pattern.compile("_cuda_setDevice|_cuda_init|_cuda_"
      + "getDeviceCount|Torch not compiled with CUDA enabled|Found no NVIDIA driver|No CUDA GPUs"
      + " are available|CUDA driver initialization failed|no CUDA-capable device|NCCL is not"
      + " available|ProcessGroupNCCL is only supported with GPUs");
  private static final Pattern TORCHRUN_VARIABLE = Pattern.compile(
      "KeyError: '(LOCAL_RANK|LOCAL_WORLD_SIZE|GROUP_RANK|ROLE_RANK|TORCHELASTIC_RUN_ID)'");

  private ScriptFailures() {}

  /**
   * The cause and fix the last lines show, if they show one.
   *
   * @param kind the job's kind, e.g. {@code PyTorchJob}
   * @param lastLines the failed replica's last lines
   */
  public static Optional<String> diagnose(String kind, List<String> lastLines) {
    for (int i = lastLines.size() - 1; i >= 0; i--) {
      String line = lastLines.get(i);
      Matcher variable = TORCHRUN_VARIABLE.matcher(line);
      if (variable.find() && !kind.equals("TrainJob")) {
        return Optional.of("the script reads " + variable.group(1) + ", which torchrun sets and"
            + " the Kubeflow operator does not: start it with torchrun (.torchrun() on the"
            + " preprocessor; the job then runs one process per GPU, else 1), or read RANK and"
            + " WORLD_SIZE, which the operator sets");
      }
      if (NO_GPU.matcher(line).find()) {
        return Optional.of("the script calls CUDA but its replica sees no GPU (" + line.trim()
            + "): on Clusters.local() that means this machine has none (replicas get its"
            + " GPUs); on a cluster a pod gets GPUs only by asking (Mutators.gpus(n)). Let the"
            + " script fall back to the CPU (device = 'cuda' if torch.cuda.is_available() else"
            + " 'cpu', backend 'gloo'; CUDA_VISIBLE_DEVICES='' then keeps it on the CPU even where"
            + " a GPU exists), or run it on a cluster with GPUs");
      }
    }
    return Optional.empty();
  }
}
