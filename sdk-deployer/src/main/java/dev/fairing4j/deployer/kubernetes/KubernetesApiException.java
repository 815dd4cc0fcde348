package dev.fairing4j.deployer.kubernetes;

import dev.fairing4j.core.FairingException;
import java.util.Objects;

/**
 * A request to the Kubernetes API server that failed, classified so a caller can react without
 * parsing text: the {@link #problem()} (name taken, operator not installed, RBAC denial, ...), the
 * HTTP status, and a hint with the concrete next step (the kubectl command, the Role rule). The
 * message never contains credentials.
 */
public final class KubernetesApiException extends FairingException {
  private static final long serialVersionUID = 1L;

  /** What went wrong, in the terms a user acts on. */
  public enum Problem {
    /** An object of that name exists already (HTTP 409). */
    ALREADY_EXISTS,
    /** The object asked for does not exist (HTTP 404). */
    NOT_FOUND,
    /** The API server does not serve the kind: its CRD (e.g. the Kubeflow operator) is missing. */
    CRD_NOT_INSTALLED,
    /** The namespace does not exist. */
    NAMESPACE_NOT_FOUND,
    /**
     * The API server refused the request (HTTP 403): RBAC denied it (the message names the Role
     * rule that would allow it), or an admission check did (a ResourceQuota, a policy).
     */
    FORBIDDEN,
    /** The API server rejected the credentials (HTTP 401). */
    UNAUTHORIZED,
    /** The API server rejected the object as invalid (HTTP 422 or 400). */
    INVALID,
    /** The API server could not be reached. */
    UNREACHABLE,
    /** Anything else, e.g. an HTTP 500. */
    OTHER
  }

  private final Problem problem;

  /**
   * A failed request.
   *
   * @param problem the classification
   * @param what the operation, e.g. {@code "create PyTorchJob"}
   * @param subject the object, e.g. {@code "kubeflow/mnist"}; null when none
   * @param message what the server said, in words
   * @param hint the next step
   * @param httpStatus the HTTP status; null when no response came
   * @param cause the low-level cause; null when none
   */
  public KubernetesApiException(Problem problem, String what, String subject, String message,
      String hint, Integer httpStatus, Throwable cause) {
    super(what, subject, message, hint, httpStatus, null, cause);
    this.problem = Objects.requireNonNull(problem, "problem");
  }

  /** What went wrong. */
  public Problem problem() {
    return problem;
  }
}
