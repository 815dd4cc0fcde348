package dev.fairing4j.deployer.mutate;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.job.PodMutator;
import dev.fairing4j.deployer.job.PodTemplate;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * An environment variable of the training container: a literal value, or one key of a Secret
 * (so the value never appears in the manifest). Replaces a variable of the same name.
 *
 * @param name the variable name
 * @param value the literal value, when not from a Secret
 * @param secretName the Secret to read, when from a Secret
 * @param secretKey the key in that Secret
 */
public record Env(String name, Optional<String> value, Optional<String> secretName,
    Optional<String> secretKey) implements PodMutator {

  /** Checks that exactly one source is given. */
  public Env {
    if (name == null || name.isBlank() || name.contains("=")) {
      throw InvalidInputException.of("env name", "'" + name + "' is not a variable name",
          "use a name without '=', e.g. WANDB_API_KEY");
    }
    Objects.requireNonNull(value, "value");
    Objects.requireNonNull(secretName, "secretName");
    Objects.requireNonNull(secretKey, "secretKey");
    if (value.isPresent() == secretName.isPresent()
        || secretName.isPresent() != secretKey.isPresent()) {
      throw InvalidInputException.of("env " + name, "needs either a value or a secret name and"
          + " key, not both or neither", "use the deployer's env(name, value) or"
          + " Mutators.envFromSecret(name, secret, key)");
    }
    secretName.ifPresent(secret -> Validators.dns1123Subdomain("env " + name + " secret",
        secret));
    secretKey.ifPresent(key -> Validators.requireText("env " + name + " secret key", key));
  }

  @Override
  public void apply(PodTemplate template) {
    if (value.isPresent()) {
      template.putEnv(name, value.get());
    } else {
      // Ordered, so a dry run prints the same bytes every time (Map.of's order varies by JVM).
      Map<String, Object> ref = new java.util.LinkedHashMap<>();
      ref.put("name", secretName.get());
      ref.put("key", secretKey.get());
      template.putEnvFrom(name, Map.of("secretKeyRef", ref));
    }
  }

  @Override
  public String toString() {
    return "env(" + name + (value.isPresent() ? "=" + value.get()
        : " from secret " + secretName.get() + "/" + secretKey.get()) + ")";
  }
}
