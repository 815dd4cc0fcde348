package dev.fairing4j.deployer.trainer;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.trainer.internal.TrainJobRules;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A TrainJob's dataset or model initializer: where the data (or the pretrained model) comes from,
 * as a URI the runtime's initializer understands ({@code hf://org/name}, {@code s3://bucket/path},
 * {@code pvc://claim/path}...), plus environment for it and a Secret whose keys become its
 * environment (a token). The runtime runs it as its {@code dataset-initializer} or
 * {@code model-initializer} job before the training nodes; the data lands in
 * {@code /workspace/dataset} or {@code /workspace/model}. An immutable value.
 *
 * <pre>{@code
 * Deployers.trainJob("llm").runtime("torchtune-llama3.2-1b")
 *     .datasetInitializer(Initializer.of("hf://tatsu-lab/alpaca").secret("hf-token"))
 * }</pre>
 *
 * @param storageUri {@code scheme://...}; checked as the CRD's rule checks it
 * @param env environment for the initializer container, in the order given
 * @param secret a Secret in the job's namespace whose keys become environment variables
 */
public record Initializer(String storageUri, Map<String, String> env, Optional<String> secret) {

  /** Checks and copies the parts. */
  public Initializer {
    TrainJobRules.checkStorageUri("storageUri", storageUri);
    env = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(env, "env")));
    env.forEach((name, value) -> {
      if (name == null || name.isBlank() || name.contains("=")) {
        throw InvalidInputException.of("initializer env", "'" + name + "' is not a variable name",
            "use printable ASCII without '=', e.g. HF_HUB_ENABLE_HF_TRANSFER");
      }
      Objects.requireNonNull(value, "initializer env " + name);
    });
    Objects.requireNonNull(secret, "secret").ifPresent(s -> Validators.dns1123Subdomain(
        "initializer secret", s));
  }

  /** An initializer that fetches {@code storageUri}. */
  public static Initializer of(String storageUri) {
    return new Initializer(storageUri, Map.of(), Optional.empty());
  }

  /** The same with one more environment variable (replacing one of that name). */
  public Initializer env(String name, String value) {
    Map<String, String> copy = new LinkedHashMap<>(env);
    copy.put(name, value);
    return new Initializer(storageUri, copy, secret);
  }

  /** The same reading Secret {@code name}'s keys as environment (e.g. an access token). */
  public Initializer secret(String name) {
    return new Initializer(storageUri, env, Optional.of(name));
  }

  @Override
  public String toString() {
    return "initializer(" + storageUri + (env.isEmpty() ? "" : ", env=" + env.keySet())
        + secret.map(s -> ", secret=" + s).orElse("") + ")";
  }
}
