package dev.fairing4j.deployer.kubernetes.internal.transport;

import dev.fairing4j.deployer.kubernetes.KubernetesApiException.Problem;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException;

/**
 * The answers an API server gives for a short while and then stops giving: while it (re)starts
 * it answers 503 ("not all HTTP paths installed", for about a second for custom resources) and
 * 429 ("storage is (re)initializing"), API Priority and Fairness answers 429 on a busy server,
 * and during the restart itself nothing listens. The watch loops, which already resume after a
 * dropped connection, treat these the same way: wait a little and ask again.
 */
final class TemporaryAnswers {
  private TemporaryAnswers() {}

  /** Whether a response with {@code code} is worth asking again for. */
  static boolean temporary(int code) {
    return code == 429 || code == 503;
  }

  /** Whether {@code e} came from such a response, or from a server not listening at all. */
  static boolean temporary(KubernetesApiException e) {
    return e.problem() == Problem.UNREACHABLE
        || e.httpStatus().filter(TemporaryAnswers::temporary).isPresent();
  }
}
