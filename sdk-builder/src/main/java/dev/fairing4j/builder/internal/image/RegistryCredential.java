package dev.fairing4j.builder.internal.image;

import dev.fairing4j.core.Secret;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Objects;

/**
 * A user name and password (or token) for one registry. {@link #toString()} shows the user only.
 *
 * @param username the user
 * @param password the password or token, masked when printed
 */
public record RegistryCredential(String username, Secret password) {
  /** Checks the parts. */
  public RegistryCredential {
    Objects.requireNonNull(username, "username");
    Objects.requireNonNull(password, "password");
  }

  /** The value of an HTTP {@code Authorization: Basic} header. */
  String basicHeader() {
    return "Basic " + Base64.getEncoder().encodeToString(
        (username + ":" + password.reveal()).getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public String toString() {
    return username + ":****";
  }
}
