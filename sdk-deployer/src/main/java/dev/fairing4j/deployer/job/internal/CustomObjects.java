package dev.fairing4j.deployer.job.internal;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Objects of any kind on a cluster's API server, for what the SDK hands to another controller
 * (Katib's Experiments and Trials): create strictly, read, list by label, delete. Only a
 * Kubernetes cluster has them; the local clusters have no API server.
 */
public interface CustomObjects {
  /**
   * Creates {@code object} with strict field validation; returns it as stored.
   *
   * @throws dev.fairing4j.core.FairingException structured as the API server's refusal, with
   *     the install command when its CRD is missing
   */
  Map<String, Object> create(Map<String, Object> object);

  /**
   * Checks that the API server serves {@code kind} of {@code apiVersion} in {@code namespace},
   * and that the namespace exists, creating nothing.
   *
   * @throws dev.fairing4j.core.FairingException with the install command when its CRD is
   *     missing, with the command that creates it when the namespace is
   */
  void requireServed(String apiVersion, String kind, String namespace);

  /**
   * Whether the API server serves {@code kind} of {@code apiVersion} in {@code namespace}: false
   * only when its CRD is missing.
   *
   * @throws dev.fairing4j.core.FairingException when the server cannot be asked (unreachable,
   *     refused credentials)
   */
  boolean serves(String apiVersion, String kind, String namespace);

  /** One object; empty when it does not exist. */
  Optional<Map<String, Object>> get(String apiVersion, String kind, String namespace,
      String name);

  /**
   * The objects of {@code kind} in {@code namespace} that carry the label; all of them for an
   * empty selector.
   */
  List<Map<String, Object>> list(String apiVersion, String kind, String namespace,
      String labelSelector);

  /** Deletes one object and what it owns, in the background; false when it did not exist. */
  boolean delete(String apiVersion, String kind, String namespace, String name);

  /** A cluster whose API server takes objects of any kind. */
  interface Provider {
    /** Its objects; cheap, reads nothing until used. */
    CustomObjects customObjects();
  }
}
