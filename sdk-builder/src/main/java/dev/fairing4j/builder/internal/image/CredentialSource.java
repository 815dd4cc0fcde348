package dev.fairing4j.builder.internal.image;

import com.google.cloud.tools.jib.api.Credential;
import com.google.cloud.tools.jib.api.CredentialRetriever;
import com.google.cloud.tools.jib.api.ImageReference;
import com.google.cloud.tools.jib.api.InvalidImageReferenceException;
import com.google.cloud.tools.jib.api.LogEvent;
import com.google.cloud.tools.jib.frontend.CredentialRetrieverFactory;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.Secret;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the credentials for one registry come from, in order: explicit user and password,
 * environment variables, then Docker's {@code config.json} ({@code $DOCKER_CONFIG/config.json} or
 * {@code ~/.docker/config.json}) and credential helpers, through Jib's retriever factories, so
 * {@code credHelpers}, {@code credsStore} and {@code auths} all work.
 * The same answer feeds Jib and fairing4j's own registry checks.
 *
 * @param explicit credentials given in code
 * @param userVariable the environment variable holding the user name
 * @param passwordVariable the environment variable holding the password or token
 * @param dockerConfig whether to consult Docker's configuration and credential helpers
 */
public record CredentialSource(Optional<RegistryCredential> explicit,
    Optional<String> userVariable, Optional<String> passwordVariable, boolean dockerConfig) {
  private static final Logger LOG = LoggerFactory.getLogger(CredentialSource.class);

  /** Anonymous access. */
  public static final CredentialSource NONE =
      new CredentialSource(Optional.empty(), Optional.empty(), Optional.empty(), false);

  /** Checks the parts. */
  public CredentialSource {
    Objects.requireNonNull(explicit, "explicit");
    Objects.requireNonNull(userVariable, "userVariable");
    Objects.requireNonNull(passwordVariable, "passwordVariable");
  }

  /** With explicit credentials. */
  public CredentialSource withExplicit(RegistryCredential credential) {
    return new CredentialSource(Optional.of(credential), userVariable, passwordVariable,
        dockerConfig);
  }

  /** With credentials read from two environment variables at build time. */
  public CredentialSource withEnvironment(String userVar, String passwordVar) {
    return new CredentialSource(explicit, Optional.of(userVar), Optional.of(passwordVar),
        dockerConfig);
  }

  /** With Docker's configuration and credential helpers as the last resort. */
  public CredentialSource withDockerConfig() {
    return new CredentialSource(explicit, userVariable, passwordVariable, true);
  }

  /**
   * The credential for {@code image} (a Jib reference string), if any source has one.
   *
   * @param environment the environment variables to read ({@code System.getenv()}; tests pass
   *     their own, e.g. with {@code DOCKER_CONFIG})
   */
  public Optional<RegistryCredential> resolve(String image, Map<String, String> environment) {
    if (explicit.isPresent()) {
      return explicit;
    }
    if (userVariable.isPresent()) {
      String user = environment.get(userVariable.get());
      String password = environment.get(passwordVariable.orElseThrow());
      if (user == null || user.isEmpty() || password == null) {
        throw InvalidInputException.of("credentialsFromEnvironment", "environment variable "
            + (user == null || user.isEmpty() ? userVariable.get() : passwordVariable.get())
            + " is not set", "export " + userVariable.get() + " and " + passwordVariable.get()
            + " before starting the JVM, or pass credentials(user, Secret)");
      }
      return Optional.of(new RegistryCredential(user, Secret.of(password)));
    }
    if (dockerConfig) {
      for (CredentialRetriever retriever : dockerRetrievers(image, environment)) {
        try {
          Optional<Credential> found = retriever.retrieve();
          if (found.isPresent()) {
            return Optional.of(new RegistryCredential(found.get().getUsername(),
                Secret.of(found.get().getPassword())));
          }
        } catch (Exception e) {
          throw FairingException.of("read Docker credentials", image, e.getMessage(),
              "check ~/.docker/config.json and the credential helper it names", e);
        }
      }
    }
    return Optional.empty();
  }

  /** A human-readable description without secrets, e.g. {@code user alice}. */
  public String describe() {
    if (explicit.isPresent()) {
      return "user " + explicit.get().username();
    }
    if (userVariable.isPresent()) {
      return "$" + userVariable.get();
    }
    return dockerConfig ? "docker config" : "anonymous";
  }

  private static List<CredentialRetriever> dockerRetrievers(String image,
      Map<String, String> environment) {
    try {
      CredentialRetrieverFactory factory = CredentialRetrieverFactory.forImage(
          ImageReference.parse(image), CredentialSource::log, environment);
      List<CredentialRetriever> retrievers = new ArrayList<>();
      // Docker's CLI honours DOCKER_CONFIG; Jib's factory only looks under user.home.
      String dockerConfigDir = environment.get("DOCKER_CONFIG");
      retrievers.add(dockerConfigDir != null && !dockerConfigDir.isBlank()
          ? factory.dockerConfig(Path.of(dockerConfigDir, "config.json"))
          : factory.dockerConfig());
      retrievers.add(factory.wellKnownCredentialHelpers());
      return retrievers;
    } catch (InvalidImageReferenceException e) {
      // JibImageBuilder lets only references through that Jib parses
      throw InvalidInputException.of("image", "'" + image + "' is a reference Jib cannot use",
          "name the registry by a host name, e.g. localhost:5000", e);
    }
  }

  private static void log(LogEvent event) {
    LOG.debug("docker credentials: {}", event.getMessage());
  }
}
