package dev.fairing4j.builder.internal.preprocess;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.Secret;
import dev.fairing4j.core.cache.internal.CacheEntries;
import dev.fairing4j.core.cache.internal.CacheUse;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.errors.CorruptObjectException;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.internal.storage.dfs.DfsRepositoryDescription;
import org.eclipse.jgit.internal.storage.dfs.InMemoryRepository;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.transport.CredentialsProvider;
import org.eclipse.jgit.transport.RefSpec;
import org.eclipse.jgit.transport.UsernamePasswordCredentialsProvider;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.util.FS;
import org.eclipse.jgit.util.SystemReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gets the files of one commit of a git repository onto disk, as cheaply as the server allows.
 *
 * <p>The remote is asked for its refs first (one round trip), so a branch or tag resolves to a
 * commit and a commit whose tree is already on disk costs nothing more. Otherwise the commit is
 * fetched with depth 1 into an in-memory repository; a server that refuses to hand out an exact
 * commit ({@code uploadpack.allowReachableSHA1InWant} off) gets a full fetch instead. The commit's
 * tree is then written to {@code <cache>/<commit>/} through a temporary directory and an atomic
 * rename, so a tree on disk is always complete and never changes: a build context can read it
 * lazily. No index and no checkout are involved, which avoids JGit's checkout-conflict pitfalls
 * and its file-system probe on the checkout directory.
 */
public final class GitCheckouts {
  private static final Logger LOG = LoggerFactory.getLogger(GitCheckouts.class);
  private static final String FETCHED = "refs/fairing4j/fetched";

  private GitCheckouts() {}

  /**
   * The repository and ref to check out.
   *
   * @param url the remote, possibly with credentials in it (never printed)
   * @param ref what to check out
   * @param username for HTTP(S) basic authentication, with {@code password}
   * @param password a password or token
   * @param protocolVersion forces a git wire protocol version (tests use 0 to get a server that
   *     refuses exact commits); empty for JGit's default
   */
  public record Source(String url, GitRef ref, Optional<String> username,
      Optional<Secret> password, OptionalInt protocolVersion) {
    /** Checks the parts. */
    public Source {
      Objects.requireNonNull(url, "url");
      Objects.requireNonNull(ref, "ref");
      Objects.requireNonNull(username, "username");
      Objects.requireNonNull(password, "password");
      Objects.requireNonNull(protocolVersion, "protocolVersion");
    }

    String safeUrl() {
      return GitUrls.withoutCredentials(url);
    }
  }

  /** How a checkout was obtained. */
  public enum Fetch {
    /** The commit's tree was already on disk: no fetch. */
    CACHED,
    /** A depth-1 fetch of just that commit. */
    SHALLOW,
    /** The server refused a depth-1 fetch: the whole history. */
    FULL
  }

  /** A commit's files on disk, and how they got there. */
  public record Checkout(Path directory, String commit, Fetch fetch) {}

  /** Resolves, fetches (when needed) and writes the commit's tree below {@code cacheRoot}. */
  public static Checkout checkout(Source source, Path cacheRoot) {
    try (CacheUse.AutoCloseableHold held = CacheUse.hold(cacheRoot)) {
      Checkout checkout = checkoutHoldingCache(source, cacheRoot);
      if (checkout.fetch() == Fetch.CACHED) {
        CacheEntries.touch(checkout.directory());  // reused: the last to be pruned
      }
      return checkout;
    }
  }

  private static Checkout checkoutHoldingCache(Source source, Path cacheRoot) {
    JGitSetup.ensure();
    GitRef ref = source.ref();
    if (ref.isFullCommit() && Files.isDirectory(cacheRoot.resolve(ref.name()))) {
      LOG.debug("commit {} is already on disk", ref.name());
      return new Checkout(cacheRoot.resolve(ref.name()), ref.name(), Fetch.CACHED);
    }
    InMemoryRepository repository = newRepository(source);
    try (Git git = Git.wrap(repository)) {
      Optional<String> advertised = Optional.empty();
      if (ref.kind() != GitRef.Kind.COMMIT) {
        advertised = Optional.of(resolveAdvertised(git, source));
        Path cached = cacheRoot.resolve(advertised.get());
        if (Files.isDirectory(cached)) {
          LOG.debug("{} is commit {}, already on disk", ref, advertised.get());
          return new Checkout(cached, advertised.get(), Fetch.CACHED);
        }
      }
      Fetched fetched = fetch(git, source);
      String id = fetched.commit().name();
      Path tree = cacheRoot.resolve(id);
      if (!Files.isDirectory(tree)) {
        materialize(repository, fetched.commit(), cacheRoot, id);
      }
      return new Checkout(tree, id, fetched.how());
    }
  }

  private static InMemoryRepository newRepository(Source source) {
    try {
      // FS.DETECTED: the file:// transport asks the local repository for one.
      InMemoryRepository repository = new InMemoryRepository.Builder()
          .setRepositoryDescription(new DfsRepositoryDescription("fairing4j"))
          .setFS(FS.DETECTED).build();
      source.protocolVersion().ifPresent(version ->
          repository.getConfig().setInt("protocol", null, "version", version));
      return repository;
    } catch (IOException e) {
      throw FairingException.of("set up git repository", source.safeUrl(), e.getMessage(),
          "see the cause", e);
    }
  }

  private static String resolveAdvertised(Git git, Source source) {
    GitRef ref = source.ref();
    Map<String, Ref> refs;
    try {
      refs = git.lsRemote().setRemote(source.url()).setCredentialsProvider(credentials(source))
          .callAsMap();
    } catch (GitAPIException | RuntimeException e) {
      throw GitFailures.remote("list refs of", source.safeUrl(), source, e);
    }
    Ref found = refs.get(ref.remoteRef());
    if (found == null) {
      String prefix = ref.kind() == GitRef.Kind.TAG ? Constants.R_TAGS : Constants.R_HEADS;
      TreeSet<String> names = new TreeSet<>();
      refs.keySet().stream().filter(name -> name.startsWith(prefix) && !name.endsWith("^{}"))
          .map(name -> name.substring(prefix.length())).forEach(names::add);
      String known = names.isEmpty() ? "none" : String.join(", ",
          names.stream().limit(10).toList()) + (names.size() > 10 ? ", ..." : "");
      throw InvalidInputException.of(ref.field(), "'" + ref.name() + "' does not exist in "
          + source.safeUrl() + (ref.kind() == GitRef.Kind.DEFAULT ? " (the remote has no HEAD)"
              : " (" + (ref.kind() == GitRef.Kind.TAG ? "tags" : "branches") + ": " + known + ")"),
          "use an existing " + (ref.kind() == GitRef.Kind.TAG ? "tag" : "branch") + ", or pin a"
              + " commit with .commit(\"<sha>\")");
    }
    ObjectId id = found.getPeeledObjectId() != null ? found.getPeeledObjectId()
        : found.getObjectId();
    if (id == null) {
      throw FairingException.of("list refs of", source.safeUrl(), ref + " has no object id",
          "check the repository with git ls-remote", null);
    }
    return id.name();
  }

  private record Fetched(RevCommit commit, Fetch how) {}

  private static Fetched fetch(Git git, Source source) {
    GitRef ref = source.ref();
    Repository repository = git.getRepository();
    if (ref.kind() != GitRef.Kind.COMMIT) {
      RefSpec spec = new RefSpec("+" + ref.remoteRef() + ":" + FETCHED);
      Fetch how = Fetch.SHALLOW;
      if (!fetchShallow(git, source, spec)) {
        fetch(git, source, spec);
        how = Fetch.FULL;
      }
      return new Fetched(parse(repository, FETCHED).orElseThrow(() -> FairingException.of("fetch",
          source.safeUrl(), ref + " was fetched but names no commit",
          "check the repository with git ls-remote", null)), how);
    }
    if (ref.isFullCommit()) {
      // Works where the server allows wants for any reachable commit (GitHub, git with protocol
      // v2, uploadpack.allowReachableSHA1InWant); elsewhere the full fetch below takes over.
      if (fetchShallow(git, source, new RefSpec(ref.name() + ":" + FETCHED))) {
        Optional<RevCommit> commit = parse(repository, ref.name());
        if (commit.isPresent()) {
          return new Fetched(commit.get(), Fetch.SHALLOW);
        }
      }
    }
    fetch(git, source, new RefSpec("+refs/heads/*:refs/heads/*"),
        new RefSpec("+refs/tags/*:refs/tags/*"));
    RevCommit commit = parse(repository, ref.name()).orElseThrow(() -> InvalidInputException.of(
        "commit", "'" + ref.name() + "' is not a commit in " + source.safeUrl(),
        "check the id (git log in a clone of the repository), or use .branch(..) / .tag(..)"));
    return new Fetched(commit, Fetch.FULL);
  }

  /** A depth-1 fetch; false (after logging why) when the server refused it. */
  private static boolean fetchShallow(Git git, Source source, RefSpec spec) {
    try {
      git.fetch().setRemote(source.url()).setCredentialsProvider(credentials(source))
          .setRefSpecs(spec).setDepth(1).call();
      return true;
    } catch (GitAPIException | RuntimeException e) {
      if (GitFailures.isAccessProblem(e)) {
        throw GitFailures.remote("fetch", source.safeUrl(), source, e);
      }
      LOG.info("depth-1 fetch of {} from {} was refused ({}); fetching the whole history instead",
          source.ref(), source.safeUrl(), GitFailures.safeMessage(e, source));
      return false;
    }
  }

  private static void fetch(Git git, Source source, RefSpec... specs) {
    try {
      git.fetch().setRemote(source.url()).setCredentialsProvider(credentials(source))
          .setRefSpecs(specs).call();
    } catch (GitAPIException | RuntimeException e) {
      throw GitFailures.remote("fetch", source.safeUrl(), source, e);
    }
  }

  private static Optional<RevCommit> parse(Repository repository, String name) {
    try (RevWalk walk = new RevWalk(repository)) {
      ObjectId id = repository.resolve(name);
      return id == null ? Optional.empty() : Optional.of(walk.parseCommit(id));
    } catch (MissingObjectException e) {
      return Optional.empty();
    } catch (IOException e) {
      // An abbreviated id matching several objects, or one naming a blob: not a usable commit.
      LOG.debug("cannot resolve {}", name, e);
      return Optional.empty();
    }
  }

  private static void materialize(Repository repository, RevCommit commit, Path cacheRoot,
      String id) {
    Path temporary;
    try {
      Files.createDirectories(cacheRoot);
      temporary = Files.createTempDirectory(cacheRoot, ".incoming-" + id.substring(0, 12) + "-");
    } catch (IOException e) {
      throw FairingException.of("write git checkout", cacheRoot.toString(), e.getMessage(),
          "make the cache directory writable or choose another with .cacheDirectory(..)", e);
    }
    List<String> leftOut = new ArrayList<>();
    try (TreeWalk walk = new TreeWalk(repository)) {
      walk.addTree(commit.getTree());
      walk.setRecursive(true);
      while (walk.next()) {
        String path = walk.getPathString();
        FileMode mode = walk.getFileMode(0);
        // Rejects '..', '.git' and the like: a hostile tree must not write outside the checkout.
        SystemReader.getInstance().checkPath(path);
        if (mode == FileMode.REGULAR_FILE || mode == FileMode.EXECUTABLE_FILE) {
          Path target = temporary.resolve(path).normalize();
          if (!target.startsWith(temporary)) {
            throw new CorruptObjectException("path escapes the checkout: " + path);
          }
          Files.createDirectories(target.getParent());
          try (OutputStream out = Files.newOutputStream(target)) {
            repository.open(walk.getObjectId(0)).copyTo(out);
          }
          Files.setPosixFilePermissions(target, PosixFilePermissions.fromString(
              mode == FileMode.EXECUTABLE_FILE ? "rwxr-xr-x" : "rw-r--r--"));
        } else {
          // Symbolic links could point anywhere on this machine, and Jib drops them anyway;
          // submodules are other repositories.
          leftOut.add(path + (mode == FileMode.GITLINK ? " (submodule)" : " (symbolic link)"));
        }
      }
      if (!leftOut.isEmpty()) {
        LOG.warn("commit {}: left out {} entries that are not regular files: {}", id,
            leftOut.size(), leftOut);
      }
      Files.move(temporary, cacheRoot.resolve(id), StandardCopyOption.ATOMIC_MOVE);
    } catch (FileAlreadyExistsException | DirectoryNotEmptyException e) {
      // Another build wrote the same commit first; its tree is identical.
      deleteQuietly(temporary);
    } catch (IOException e) {
      deleteQuietly(temporary);
      throw FairingException.of("write git checkout", id, e.getMessage(),
          "check free space and permissions in " + cacheRoot, e);
    }
  }

  private static CredentialsProvider credentials(Source source) {
    if (source.username().isEmpty()) {
      return null;
    }
    return new UsernamePasswordCredentialsProvider(source.username().get(),
        source.password().map(Secret::reveal).orElse(""));
  }

  private static void deleteQuietly(Path directory) {
    try (Stream<Path> paths = Files.walk(directory)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> {
        try {
          Files.deleteIfExists(path);
        } catch (IOException e) {
          LOG.debug("cannot delete {}", path, e);
        }
      });
    } catch (IOException e) {
      LOG.debug("cannot delete {}", directory, e);
    }
  }
}
