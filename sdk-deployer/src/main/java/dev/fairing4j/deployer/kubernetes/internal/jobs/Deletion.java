package dev.fairing4j.deployer.kubernetes.internal.jobs;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.internal.Durations;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeRest;
import dev.fairing4j.deployer.kubernetes.internal.transport.ResourceRef;
import dev.fairing4j.deployer.kubernetes.internal.transport.Timings;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Deletes an object and waits until the API server no longer returns it. With {@code Foreground}
 * propagation the object stays visible (with a deletion timestamp) until its dependents (the
 * operator's pods and Services, owned Secrets) are gone, so a replacement can reuse their names.
 */
public final class Deletion {
  /** Dependents first, then the object. */
  public static final String FOREGROUND = "Foreground";
  /** The object now, dependents by the garbage collector afterwards. */
  public static final String BACKGROUND = "Background";

  private Deletion() {}

  /**
   * Deletes the object and waits up to {@code timings.deleteTimeout()} for it to disappear;
   * returns false when there was nothing to delete.
   */
  public static boolean deleteAndWait(KubeRest rest, ResourceRef resource,
      Optional<String> namespace, String name, String propagation, Timings timings) {
    if (!rest.delete(resource, namespace, name, propagation)) {
      return false;
    }
    long deadline = System.nanoTime() + timings.deleteTimeout().toNanos();
    while (true) {
      Optional<Map<String, Object>> current = rest.find(resource, namespace, name);
      if (current.isEmpty()) {
        return true;
      }
      if (System.nanoTime() - deadline >= 0) {
        List<?> finalizers = JsonTree.at(current.get(), "metadata", "finalizers")
            .filter(List.class::isInstance).map(f -> (List<?>) f).orElse(List.of());
        String ns = namespace.map(n -> " -n " + n).orElse("");
        throw FairingException.of("delete " + resource.kind(),
            namespace.map(n -> n + "/").orElse("") + name,
            "still terminating after " + Durations.human(timings.deleteTimeout())
                + (finalizers.isEmpty() ? "" : "; finalizers left: " + finalizers),
            "see what holds it with 'kubectl get " + resource.kubectlName() + " " + name + ns
                + " -o yaml' and the pods it owns; a stuck finalizer can be removed with kubectl"
                + " patch", null);
      }
      Timings.sleep(timings.deletePoll(), "delete " + resource.kind());
    }
  }
}
