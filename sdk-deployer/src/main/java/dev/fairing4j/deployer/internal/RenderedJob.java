package dev.fairing4j.deployer.internal;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A job rendered to Kubernetes objects, ready to submit: the training object itself (a PyTorchJob,
 * TFJob or batch Job) plus the objects it needs (headless Services, image-pull Secrets, ...), each
 * as an ordered JSON-like map exactly as it would be sent to the API server.
 *
 * @param kind the training object's kind, e.g. {@code PyTorchJob}
 * @param name the job name
 * @param namespace the namespace every namespaced object goes into
 * @param objects every object in creation order: dependencies first, the training object last
 */
public record RenderedJob(String kind, String name, String namespace,
    List<Map<String, Object>> objects) {

  /** Copies the list. */
  public RenderedJob {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(namespace, "namespace");
    objects = List.copyOf(objects);
  }

  /**
   * {@code PyTorchJob team/mnist (3 objects)}: never the objects themselves, which may hold the
   * real data of an image-pull Secret.
   */
  @Override
  public String toString() {
    return kind + " " + namespace + "/" + name + " (" + objects.size() + " objects)";
  }

  /** The training object (the last one). */
  public Map<String, Object> trainingObject() {
    return objects.get(objects.size() - 1);
  }
}
