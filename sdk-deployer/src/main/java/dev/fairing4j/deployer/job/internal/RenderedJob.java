package dev.fairing4j.deployer.job.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
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

  /**
   * This job with {@code image} wherever its objects hold {@code placeholder} (a container's
   * image, and whatever a mutator copied it into): the objects a plan rendered before its image
   * existed, ready to submit. Deep-copies; this job's objects stay as they are.
   */
  public RenderedJob withImage(String placeholder, String image) {
    List<Map<String, Object>> filled = new ArrayList<>();
    for (Map<String, Object> object : objects) {
      filled.add(filledMap(object, placeholder, image));
    }
    return new RenderedJob(kind, name, namespace, filled);
  }

  private static Map<String, Object> filledMap(Map<String, Object> map, String placeholder,
      String image) {
    Map<String, Object> copy = new LinkedHashMap<>();
    map.forEach((key, value) -> copy.put(key, filled(value, placeholder, image)));
    return copy;
  }

  private static Object filled(Object value, String placeholder, String image) {
    if (value instanceof String text) {
      return text.replace(placeholder, image);
    }
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> copy = new LinkedHashMap<>();
      map.forEach((key, child) -> copy.put(String.valueOf(key), filled(child, placeholder,
          image)));
      return copy;
    }
    if (value instanceof List<?> list) {
      List<Object> copy = new ArrayList<>();
      list.forEach(item -> copy.add(filled(item, placeholder, image)));
      return copy;
    }
    return value;
  }

  /** The training object (the last one). */
  public Map<String, Object> trainingObject() {
    return objects.get(objects.size() - 1);
  }
}
