package dev.fairing4j.builder.internal.preprocess;

import dev.fairing4j.core.FairingException;
import java.util.Locale;
import org.eclipse.jgit.errors.NoRemoteRepositoryException;

/**
 * Turns JGit's exceptions into {@link FairingException}s that say what to do, with every trace of
 * credentials (a password, a URL with user info) taken out of the message, and the JGit cause
 * dropped when its own message carried one.
 */
final class GitFailures {
  private GitFailures() {}

  /**
   * True when retrying with a full fetch cannot help: the server is unreachable, the repository
   * does not exist, or access was refused.
   */
  static boolean isAccessProblem(Throwable e) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause instanceof NoRemoteRepositoryException || cause instanceof java.net.ConnectException
          || cause instanceof java.net.UnknownHostException) {
        return true;
      }
      String message = String.valueOf(cause.getMessage()).toLowerCase(Locale.ROOT);
      if (message.contains("not authorized") || message.contains("authentication")
          || message.contains("auth fail") || message.contains("401") || message.contains("403")
          || message.contains("repository not found") || message.contains("not exported")
          || message.contains("connection refused") || message.contains("does not appear to be")) {
        return true;
      }
    }
    return false;
  }

  static FairingException remote(String what, String safeUrl, GitCheckouts.Source source,
      Throwable e) {
    String message = safeMessage(e, source);
    String lower = message.toLowerCase(Locale.ROOT);
    String hint;
    if (lower.contains("not authorized") || lower.contains("authentication")
        || lower.contains("auth fail") || lower.contains("401") || lower.contains("403")) {
      hint = "check the user name and token given to .credentials(user, Secret.of(token)), and"
          + " that they may read the repository";
    } else if (lower.contains("connection refused") || lower.contains("unknownhost")
        || lower.contains("unknown host") || lower.contains("timed out")) {
      hint = "check the host and port in the URL and that the git server is running and reachable";
    } else {
      hint = "check the URL (git ls-remote " + safeUrl + " should list its refs)";
    }
    return FairingException.of(what + " git repository", safeUrl, message, hint,
        chainIsSafe(e, source) ? e : null);
  }

  /** The messages of {@code e} and its causes, with credentials replaced. */
  static String safeMessage(Throwable e, GitCheckouts.Source source) {
    return safeMessageOf(rawMessage(e), source);
  }

  private static String rawMessage(Throwable e) {
    StringBuilder text = new StringBuilder();
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      String message = cause.getMessage();
      if (message != null && !message.isBlank() && text.indexOf(message) < 0) {
        text.append(text.length() == 0 ? "" : ": ").append(message);
      }
    }
    return text.length() == 0 ? e.getClass().getSimpleName() : text.toString();
  }

  private static boolean chainIsSafe(Throwable e, GitCheckouts.Source source) {
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      String message = String.valueOf(cause.getMessage());
      if (!message.equals(safeMessageOf(message, source))) {
        return false;
      }
    }
    return true;
  }

  private static String safeMessageOf(String message, GitCheckouts.Source source) {
    String result = message.replace(source.url(), source.safeUrl());
    if (source.password().isPresent() && !source.password().get().isEmpty()) {
      result = result.replace(source.password().get().reveal(), "****");
    }
    return result.replaceAll("//[^/@\\s]*:[^/@\\s]*@", "//");
  }
}
