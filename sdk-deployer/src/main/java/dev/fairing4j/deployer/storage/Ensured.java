package dev.fairing4j.deployer.storage;

import java.util.Objects;
import java.util.Optional;

/**
 * What {@link ClusterStorage#ensure} did with one object.
 *
 * @param kind {@code PersistentVolume} or {@code PersistentVolumeClaim}
 * @param name the object's name
 * @param namespace the claim's namespace; empty for a (cluster-wide) volume
 * @param action created, found as wanted, or grown
 */
public record Ensured(String kind, String name, Optional<String> namespace, Action action) {
  /** What happened to the object. */
  public enum Action {
    /** It did not exist and was created. */
    CREATED,
    /** It existed as wanted; no request changed it. */
    UNCHANGED,
    /** A claim existed with a smaller size request, which was raised (volume expansion). */
    EXPANDED
  }

  /** Checks the parts. */
  public Ensured {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(action, "action");
  }

  /** E.g. {@code PersistentVolumeClaim team/models: CREATED}. */
  @Override
  public String toString() {
    return kind + " " + namespace.map(ns -> ns + "/").orElse("") + name + ": " + action;
  }
}
