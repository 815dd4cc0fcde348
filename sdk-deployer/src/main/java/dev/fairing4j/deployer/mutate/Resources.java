package dev.fairing4j.deployer.mutate;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.job.PodMutator;
import dev.fairing4j.deployer.job.PodTemplate;
import dev.fairing4j.deployer.job.ReplicaType;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * CPU and memory (as requests and equal limits, so the pod gets what it asked for) and GPUs (as
 * limits of {@code nvidia.com/gpu} or another vendor's resource) for the training container. Only
 * the named resources are set; everything else the container asks for is kept.
 *
 * <p>Applied to every replica of a TFJob, the GPUs skip parameter servers (they hold variables and
 * do no compute); a PS gets GPUs only when the mutator targets PS by name.
 *
 * @param cpu CPU, e.g. {@code 2} or {@code 500m}
 * @param memory memory, e.g. {@code 4Gi}
 * @param gpus GPUs per pod; 0 leaves GPUs alone
 * @param gpuResource the extended resource name, e.g. {@code nvidia.com/gpu}
 */
public record Resources(Optional<String> cpu, Optional<String> memory, int gpus,
    String gpuResource) implements PodMutator {

  /** NVIDIA's device-plugin resource. */
  public static final String NVIDIA_GPU = "nvidia.com/gpu";
  /** AMD's device-plugin resource. */
  public static final String AMD_GPU = "amd.com/gpu";

  private static final Pattern RESOURCE_NAME =
      Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");

  /** Checks every quantity. */
  public Resources {
    cpu = Objects.requireNonNull(cpu, "cpu").map(value -> Validators.quantity("cpu", value));
    memory = Objects.requireNonNull(memory, "memory")
        .map(value -> Validators.quantity("memory", value));
    Validators.atLeast("gpus", gpus, 0);
    Validators.requireText("gpuResource", gpuResource);
    if (!RESOURCE_NAME.matcher(gpuResource).matches()) {
      throw InvalidInputException.of("gpuResource", "'" + gpuResource
          + "' is not an extended resource name", "use vendor-domain/name, e.g. nvidia.com/gpu");
    }
  }

  /** GPUs from AMD ({@code amd.com/gpu}). */
  public Resources amd() {
    return gpuResource(AMD_GPU);
  }

  /** GPUs from NVIDIA ({@code nvidia.com/gpu}, the default). */
  public Resources nvidia() {
    return gpuResource(NVIDIA_GPU);
  }

  /** GPUs as another extended resource, e.g. {@code gpu.intel.com/i915}. */
  public Resources gpuResource(String resource) {
    return new Resources(cpu, memory, gpus, resource);
  }

  @Override
  public void apply(PodTemplate template) {
    cpu.ifPresent(value -> template.putResource("requests", "cpu", value)
        .putResource("limits", "cpu", value));
    memory.ifPresent(value -> template.putResource("requests", "memory", value)
        .putResource("limits", "memory", value));
    if (gpus > 0 && gpusFor(template)) {
      template.putResource("limits", gpuResource, String.valueOf(gpus));
    }
  }

  private static boolean gpusFor(PodTemplate template) {
    return !(template.replicaType().equals(Optional.of(ReplicaType.PS))
        && !template.targetedExplicitly());
  }

  @Override
  public String toString() {
    java.util.List<String> parts = new java.util.ArrayList<>();
    cpu.ifPresent(c -> parts.add("cpu=" + c));
    memory.ifPresent(m -> parts.add("memory=" + m));
    if (gpus > 0) {
      parts.add(gpuResource + "=" + gpus);
    }
    return "resources(" + String.join(" ", parts) + ")";
  }
}
