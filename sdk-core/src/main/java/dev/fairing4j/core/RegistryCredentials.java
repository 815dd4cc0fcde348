package dev.fairing4j.core;

import dev.fairing4j.core.internal.Validators;
import java.util.Objects;

/**
 * A username and password (or token) for one container registry: what a build pushes with, and
 * what the cluster needs to pull the same private image (as an image-pull Secret). The password is
 * a {@link Secret}, so this value prints as {@code alice@registry.example.com}.
 *
 * @param registry the registry host and optional port, as in an {@link ImageRef}
 * @param username the user name
 * @param password the password or token
 */
public record RegistryCredentials(String registry, String username, Secret password) {

  /** Checks every part. */
  public RegistryCredentials {
    Validators.requireText("registry", registry);
    Validators.requireText("username", username);
    Objects.requireNonNull(password, "password");
  }

  @Override
  public String toString() {
    return username + "@" + registry;
  }
}
