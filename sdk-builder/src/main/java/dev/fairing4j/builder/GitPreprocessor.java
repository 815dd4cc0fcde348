package dev.fairing4j.builder;

import dev.fairing4j.builder.internal.preprocess.EntrySource;
import dev.fairing4j.builder.internal.preprocess.GitCheckouts;
import dev.fairing4j.builder.internal.preprocess.GitRef;
import dev.fairing4j.builder.internal.preprocess.GitUrls;
import dev.fairing4j.builder.internal.preprocess.PythonContextBuilder;
import dev.fairing4j.builder.internal.preprocess.PythonOptions;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.Secret;
import dev.fairing4j.core.cache.Caches;
import dev.fairing4j.core.internal.Validators;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Training code from a git repository, at a branch, a tag or an exact commit, optionally from a
 * subdirectory. {@link #prepare()} fetches the commit with JGit (depth 1 where the server allows,
 * the whole history where it does not) and writes its files to a cache directory keyed by commit,
 * so an unchanged commit is fetched once. The image gets the OCI labels
 * {@code org.opencontainers.image.revision} (the commit id) and
 * {@code org.opencontainers.image.source} (the URL, without credentials).
 *
 * <p>Paths for {@link #entry}, {@link #files}, {@link #directories} and {@link #requirements} are
 * relative to the checkout (or its {@link #subdirectory}). Create one with
 * {@link Preprocessors#git(String)}; it is an immutable value.
 */
public final class GitPreprocessor extends AbstractPythonPreprocessor<GitPreprocessor> {
  /** The OCI label for the commit id. */
  public static final String REVISION_LABEL = "org.opencontainers.image.revision";
  /** The OCI label for the repository URL. */
  public static final String SOURCE_LABEL = "org.opencontainers.image.source";

  private final String url;
  private final GitRef ref;
  private final String subdirectory;
  private final Optional<String> entry;
  private final Optional<String> username;
  private final Optional<Secret> password;
  private final Optional<Path> cacheDirectory;

  GitPreprocessor(String url, GitRef ref, String subdirectory, Optional<String> entry,
      Optional<String> username, Optional<Secret> password, Optional<Path> cacheDirectory,
      PythonOptions options) {
    super(options);
    this.url = url;
    this.ref = ref;
    this.subdirectory = subdirectory;
    this.entry = entry;
    this.username = username;
    this.password = password;
    this.cacheDirectory = cacheDirectory;
  }

  static GitPreprocessor of(String url) {
    return new GitPreprocessor(GitUrls.check(url), GitRef.defaultBranch(), "", Optional.empty(),
        Optional.empty(), Optional.empty(), Optional.empty(), PythonOptions.defaults());
  }

  /** Checks out the tip of {@code branch} (default: the remote's default branch). */
  public GitPreprocessor branch(String branch) {
    return withRef(GitRef.branch(branch));
  }

  /** Checks out {@code tag}. */
  public GitPreprocessor tag(String tag) {
    return withRef(GitRef.tag(tag));
  }

  /** Checks out an exact commit: 40 hex digits (or an abbreviation, which costs a full fetch). */
  public GitPreprocessor commit(String commitId) {
    return withRef(GitRef.commit(commitId));
  }

  /** Uses this directory of the repository as the base directory. */
  public GitPreprocessor subdirectory(String relativeDirectory) {
    Validators.requireText("subdirectory", relativeDirectory);
    String trimmed = relativeDirectory.trim().replaceAll("^/+|/+$", "");
    Path path = relativePath("subdirectory", relativeDirectory, trimmed.isEmpty() ? "/" : trimmed,
        "'training' or 'src/mnist'");
    return new GitPreprocessor(url, ref, path.toString(), entry, username, password,
        cacheDirectory, options);
  }

  /**
   * The script to run, relative to the checkout (or subdirectory), e.g. {@code train.py}.
   *
   * @throws InvalidInputException when it is absolute, leaves the checkout ({@code ..}) or is no
   *     path at all
   */
  public GitPreprocessor entry(String relativePath) {
    Validators.requireText("entry", relativePath);
    relativePath("entry", relativePath, relativePath.trim(), "'train.py' or 'src/train.py'");
    return new GitPreprocessor(url, ref, subdirectory, Optional.of(relativePath.trim()), username,
        password, cacheDirectory, options);
  }

  /** {@code text} as a normalized path inside the repository, or the reason it is not one. */
  private static Path relativePath(String field, String given, String text, String example) {
    String fix = "give a path relative to the repository such as " + example + ", without '..'";
    Path path;
    try {
      path = Path.of(text).normalize();
    } catch (InvalidPathException e) {
      throw InvalidInputException.of(field, "'" + given.replace("\0", "\\0")
          + "' is not a path: " + e.getReason(), fix, e);
    }
    if (path.isAbsolute() || path.startsWith("..") || path.toString().isEmpty()) {
      throw InvalidInputException.of(field, "'" + given + "' is not a path inside the"
          + " repository", fix);
    }
    return path;
  }

  /** HTTP(S) credentials: a user name and a password or access token. */
  public GitPreprocessor credentials(String user, Secret passwordOrToken) {
    Validators.requireText("username", user);
    Objects.requireNonNull(passwordOrToken, "password");
    return new GitPreprocessor(url, ref, subdirectory, entry, Optional.of(user),
        Optional.of(passwordOrToken), cacheDirectory, options);
  }

  /**
   * Where checked-out trees are kept, one directory per commit; default
   * {@code ~/.cache/fairing4j/git-trees} (or under {@code $XDG_CACHE_HOME}).
   */
  public GitPreprocessor cacheDirectory(Path directory) {
    return new GitPreprocessor(url, ref, subdirectory, entry, username, password,
        Optional.of(Objects.requireNonNull(directory, "cacheDirectory").toAbsolutePath()),
        options);
  }

  /** The repository URL without credentials. */
  public String url() {
    return GitUrls.withoutCredentials(url);
  }

  @Override
  GitPreprocessor withOptions(PythonOptions newOptions) {
    return new GitPreprocessor(url, ref, subdirectory, entry, username, password, cacheDirectory,
        newOptions);
  }

  private GitPreprocessor withRef(GitRef newRef) {
    return new GitPreprocessor(url, newRef, subdirectory, entry, username, password,
        cacheDirectory, options);
  }

  @Override
  public BuildContext prepare() {
    String entryPath = entry.orElseThrow(() -> InvalidInputException.of("entry", "is not set",
        "name the script in the repository, e.g. Preprocessors.git(url).entry(\"train.py\")"));
    GitCheckouts.Checkout checkout = GitCheckouts.checkout(new GitCheckouts.Source(url, ref,
        username, password, OptionalInt.empty()),
        cacheDirectory.orElseGet(() -> Caches.user().directory(Caches.GIT_TREES)));
    Path base = checkout.directory().resolve(subdirectory).normalize();
    if (!Files.isDirectory(base)) {
      throw InvalidInputException.of("subdirectory", "'" + subdirectory + "' is not a directory in"
          + " commit " + checkout.commit() + " of " + url(), "check the path in the repository");
    }
    requireEntry(checkout, base, entryPath);
    return PythonContextBuilder.build(base, new EntrySource.HostFile(Path.of(entryPath)), options)
        .withLabel(REVISION_LABEL, checkout.commit())
        .withLabel(SOURCE_LABEL, url());
  }

  /**
   * The entry must be a file of the checked-out tree; the error names the repository, the ref and
   * the path in it (not the cache directory it was checked out to) and what is near that path.
   */
  private void requireEntry(GitCheckouts.Checkout checkout, Path base, String entryPath) {
    Path entryFile = base.resolve(entryPath).normalize();
    if (Files.isRegularFile(entryFile) && entryFile.startsWith(checkout.directory())) {
      return;
    }
    Path root = checkout.directory();
    String inRepo = root.relativize(entryFile.startsWith(root) ? entryFile : base).toString();
    Path near = entryFile.getParent();
    while (near != null && near.startsWith(root) && !Files.isDirectory(near)) {
      near = near.getParent();
    }
    if (near == null || !near.startsWith(root)) {
      near = root;
    }
    String where = root.relativize(near).toString();
    List<String> names = new ArrayList<>();
    try (var listing = Files.list(near)) {
      listing.filter(p -> !p.getFileName().toString().equals(".git"))
          .sorted(Comparator.comparing((Path p) -> !p.getFileName().toString().endsWith(".py"))
              .thenComparing(p -> p.getFileName().toString()))
          .forEach(p -> names.add(p.getFileName() + (Files.isDirectory(p) ? "/" : "")));
    } catch (java.io.IOException e) {
      // listing is a courtesy: the error below stands without it
    }
    String shown = names.size() > 12 ? String.join(", ", names.subList(0, 12)) + ", ... ("
        + names.size() + " entries)" : String.join(", ", names);
    throw InvalidInputException.of("entry", "'" + inRepo + "' is not a file in " + url() + " at "
        + ref + " (commit " + checkout.commit().substring(0, Math.min(12, checkout.commit()
            .length())) + ")", "name a file of the repository" + (subdirectory.isEmpty() ? ""
                : " (relative to subdirectory '" + subdirectory + "')") + "; "
            + (where.isEmpty() ? "its top level" : "'" + where + "/'") + " has: "
            + (shown.isEmpty() ? "nothing" : shown));
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof GitPreprocessor that && url.equals(that.url) && ref.equals(that.ref)
        && subdirectory.equals(that.subdirectory) && entry.equals(that.entry)
        && username.equals(that.username) && password.equals(that.password)
        && cacheDirectory.equals(that.cacheDirectory) && options.equals(that.options);
  }

  @Override
  public int hashCode() {
    return Objects.hash(url, ref, subdirectory, entry, username, cacheDirectory, options);
  }

  @Override
  public String toString() {
    return "git(" + url() + (ref.kind() == GitRef.Kind.DEFAULT ? "" : ", " + ref)
        + (subdirectory.isEmpty() ? "" : ", subdirectory=" + subdirectory)
        + entry.map(e -> ", entry=" + e).orElse("")
        + username.map(u -> ", user=" + u).orElse("") + options.summary() + ")";
  }
}
