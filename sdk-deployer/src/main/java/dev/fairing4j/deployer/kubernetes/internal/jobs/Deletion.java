package dev.fairing4j.deployer.kubernetes.internal.jobs;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.internal.Durations;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeRest;
import dev.fairing4j.deployer.kubernetes.internal.transport.ResourceRef;
import dev.fairing4j.deployer.kubernetes.internal.transport.Timings;
import java.util.ArrayList;
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
   * Deletes the training job {@code job} (Foreground) and waits until it, its pods and, for a
   * TrainJob, its JobSet and Jobs are gone; returns false when there was nothing to delete.
   * Foreground deletion removes first the dependents the garbage collector knows of, but one
   * made moments before (the JobSet a Trainer has just created) may not be in its graph yet and
   * goes only after the owner: waiting for those too lets a replacement reuse their names. What
   * this user may not read (no RBAC on JobSets) is not waited for.
   *
   * @throws dev.fairing4j.core.FairingException when something is still terminating after
   *     {@code timings.deleteTimeout()}
   */
  public static boolean deleteJobAndWait(KubeRest rest, JobRef job, Timings timings) {
    long deadline = System.nanoTime() + timings.deleteTimeout().toNanos();
    if (!deleteAndWait(rest, job.resource(), job.ns(), job.name(), FOREGROUND, timings)) {
      return false;
    }
    JobReader reader = new JobReader(rest, job);
    while (true) {
      List<String> left = new ArrayList<>();
      reader.related(Map.of()).forEach(o -> left.add(describe(o)));
      try {
        reader.podObjects().forEach(o -> left.add(describe(o)));
      } catch (KubernetesApiException e) {
        if (e.problem() != KubernetesApiException.Problem.FORBIDDEN) {
          throw e;
        }
      }
      if (left.isEmpty()) {
        return true;
      }
      if (System.nanoTime() - deadline >= 0) {
        throw FairingException.of("delete " + job.kind(), job.namespace() + "/" + job.name(),
            "deleted, but what it owned is still terminating after "
                + Durations.human(timings.deleteTimeout()) + ": " + String.join(", ", left),
            "see what holds them with 'kubectl get " + left.get(0) + " -n " + job.namespace()
                + " -o yaml'; the garbage collector of kube-controller-manager deletes them",
            null);
      }
      Timings.sleep(timings.deletePoll(), "delete " + job.kind());
    }
  }

  private static String describe(Map<String, Object> object) {
    return JsonTree.string(object, "kind").orElse("Pod") + "/"
        + JsonTree.string(object, "metadata", "name").orElse("?");
  }

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
