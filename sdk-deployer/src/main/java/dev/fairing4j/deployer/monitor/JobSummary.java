package dev.fairing4j.deployer.monitor;

import dev.fairing4j.core.JobPhase;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One training job as a list shows it (Arena's {@code list}): name, status, trainer kind, age
 * and the node its lead replica (Master / Chief / first pod) runs on.
 *
 * @param name the job name
 * @param namespace its namespace
 * @param status its phase by the operator's precedence rule
 * @param trainer the kind: {@code PyTorchJob}, {@code TFJob} or {@code Job}
 * @param created when it was created, if the server said
 * @param node the lead replica's node, once scheduled
 */
public record JobSummary(String name, String namespace, JobPhase status, String trainer,
    Optional<Instant> created, Optional<String> node) {

  /** Checks the parts. */
  public JobSummary {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(trainer, "trainer");
    created = created == null ? Optional.empty() : created;
    node = node == null ? Optional.empty() : node;
  }

  /** How old the job is at {@code now}, kubectl style ({@code 45s}, {@code 12m}, {@code 3h}). */
  public String age(Instant now) {
    return created.map(c -> Ages.format(Duration.between(c, now))).orElse("?");
  }

  @Override
  public String toString() {
    return trainer + " " + namespace + "/" + name + " " + status + node.map(n -> " on " + n)
        .orElse("");
  }
}
