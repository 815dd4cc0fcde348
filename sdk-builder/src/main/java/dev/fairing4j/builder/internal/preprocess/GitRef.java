package dev.fairing4j.builder.internal.preprocess;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Validators;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What to check out of a git repository: a branch, a tag, an exact commit, or the remote's default
 * branch. The field name ({@code branch}, {@code tag}, {@code commit}) is what errors name.
 *
 * @param kind which kind of ref
 * @param name the branch or tag name, or the commit id; empty for the default branch
 */
public record GitRef(Kind kind, String name) {
  private static final Pattern COMMIT = Pattern.compile("[0-9a-f]{7,40}");

  /** The kinds of ref. */
  public enum Kind {
    /** The remote's HEAD. */
    DEFAULT,
    /** {@code refs/heads/<name>}. */
    BRANCH,
    /** {@code refs/tags/<name>}. */
    TAG,
    /** A commit id, full (40 hex digits) or abbreviated (at least 7). */
    COMMIT
  }

  /** Checks the parts. */
  public GitRef {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(name, "name");
  }

  /** The remote's default branch. */
  public static GitRef defaultBranch() {
    return new GitRef(Kind.DEFAULT, "");
  }

  /** A branch; {@code refs/heads/} is stripped if given. */
  public static GitRef branch(String name) {
    return new GitRef(Kind.BRANCH, refName("branch", name, "refs/heads/"));
  }

  /** A tag; {@code refs/tags/} is stripped if given. */
  public static GitRef tag(String name) {
    return new GitRef(Kind.TAG, refName("tag", name, "refs/tags/"));
  }

  /** A commit id: 7 to 40 hex digits. */
  public static GitRef commit(String id) {
    Validators.requireText("commit", id);
    String lower = id.trim().toLowerCase(Locale.ROOT);
    if (!COMMIT.matcher(lower).matches()) {
      throw InvalidInputException.of("commit", "'" + id + "' is not a commit id",
          "give 7 to 40 hex digits, e.g. the output of git rev-parse HEAD; for a branch or tag use"
              + " .branch(..) or .tag(..)");
    }
    return new GitRef(Kind.COMMIT, lower);
  }

  /** The full ref name on the remote: {@code HEAD}, {@code refs/heads/x}, {@code refs/tags/x}. */
  public String remoteRef() {
    return switch (kind) {
      case DEFAULT -> "HEAD";
      case BRANCH -> "refs/heads/" + name;
      case TAG -> "refs/tags/" + name;
      case COMMIT -> name;
    };
  }

  /** True for a full 40-digit commit id, which names a tree that can never change. */
  public boolean isFullCommit() {
    return kind == Kind.COMMIT && name.length() == 40;
  }

  /** The configuration field that sets this ref. */
  public String field() {
    return kind == Kind.DEFAULT ? "url" : kind.name().toLowerCase(Locale.ROOT);
  }

  @Override
  public String toString() {
    return kind == Kind.DEFAULT ? "default branch" : field() + " " + name;
  }

  private static String refName(String field, String value, String prefix) {
    Validators.requireText(field, value);
    String name = value.trim().startsWith(prefix) ? value.trim().substring(prefix.length())
        : value.trim();
    if (name.isEmpty() || name.startsWith("-") || name.contains("..") || name.contains(" ")
        || name.contains("~") || name.contains("^") || name.contains(":") || name.endsWith("/")
        || name.endsWith(".lock")) {
      throw InvalidInputException.of(field, "'" + value + "' is not a valid git " + field + " name",
          "give the " + field + " name as git shows it, e.g. main or v1.0");
    }
    return name;
  }
}
