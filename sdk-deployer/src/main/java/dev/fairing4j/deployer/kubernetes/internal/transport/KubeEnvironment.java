package dev.fairing4j.deployer.kubernetes.internal.transport;

import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The parts of the process environment that decide which cluster kubectl would talk to: the
 * {@code KUBECONFIG} variable, the home directory ({@code ~/.kube/config}), the in-cluster service
 * variables and the service-account directory. A value, so tests can describe any machine.
 *
 * @param variables environment variables
 * @param home the user's home directory
 * @param serviceAccountDir where a pod finds its service-account token, CA and namespace
 */
public record KubeEnvironment(Map<String, String> variables, Path home, Path serviceAccountDir) {

  /** The standard service-account mount inside a pod. */
  public static final Path SERVICE_ACCOUNT_DIR =
      Path.of("/var/run/secrets/kubernetes.io/serviceaccount");

  /** Copies the variables. */
  public KubeEnvironment {
    variables = Map.copyOf(variables);
    Objects.requireNonNull(home, "home");
    Objects.requireNonNull(serviceAccountDir, "serviceAccountDir");
  }

  /** This process's environment. */
  public static KubeEnvironment system() {
    Map<String, String> env = System.getenv();
    // kubectl resolves ~ from $HOME; the JVM's user.home is the fallback when HOME is unset.
    String home = env.getOrDefault("HOME", System.getProperty("user.home"));
    return new KubeEnvironment(env, Path.of(home), SERVICE_ACCOUNT_DIR);
  }

  /** A non-blank variable. */
  public Optional<String> variable(String name) {
    return Optional.ofNullable(variables.get(name)).filter(v -> !v.isBlank());
  }
}
