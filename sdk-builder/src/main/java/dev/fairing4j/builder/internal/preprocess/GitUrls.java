package dev.fairing4j.builder.internal.preprocess;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Validators;
import java.net.URISyntaxException;
import org.eclipse.jgit.transport.URIish;

/** Parses git URLs and strips the credentials some users put in them. */
public final class GitUrls {
  private GitUrls() {}

  /** Checks that JGit can parse {@code url}. */
  public static String check(String url) {
    Validators.requireText("url", url);
    try {
      URIish parsed = new URIish(url.trim());
      if (parsed.getPath() == null || parsed.getPath().isEmpty()) {
        throw new URISyntaxException(url, "no repository path");
      }
      return url.trim();
    } catch (URISyntaxException e) {
      throw InvalidInputException.of("url", "'" + withoutCredentials(url) + "' is not a git URL: "
          + e.getReason(), "use https://host/owner/repo.git, ssh://git@host/owner/repo.git,"
          + " git://host/repo or file:///path/to/repo", e);
    }
  }

  /**
   * {@code url} without user name or password: safe for labels, messages and {@code toString()}.
   * A user name is dropped too, because tokens are often passed as the user name.
   */
  public static String withoutCredentials(String url) {
    try {
      URIish parsed = new URIish(url.trim());
      if (parsed.getUser() == null && parsed.getPass() == null) {
        return url.trim();
      }
      return parsed.setUser(null).setPass(null).toString();
    } catch (URISyntaxException e) {
      // Not parseable: cut anything that looks like user info rather than risk printing a secret.
      return url.replaceAll("//[^/@]*@", "//");
    }
  }
}
