package dev.fairing4j.examples;

import dev.fairing4j.core.FairingException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.ZoneOffset;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.PersonIdent;

/**
 * Git repositories made from the bundled scripts, for the examples that sync their code from git
 * ({@code arena-dist}) when no {@code --git-url} is given. A repository is created once in the
 * cache, next to the extracted script, with a fixed author and date: the same script always gives
 * the same commit id, so the image built from it keeps its tag.
 */
public final class ExampleRepos {
  // Fixed so that the commit id depends on the content only.
  private static final PersonIdent AUTHOR = new PersonIdent("fairing4j examples",
      "examples@fairing4j.dev", Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);

  private ExampleRepos() {}

  /**
   * A repository whose single commit holds the bundled script {@code script} at its root; its
   * {@code file://} URL.
   */
  public static String of(String script) {
    Path extracted = ExampleScripts.extract(script);
    Path repo = extracted.getParent().resolve("repo-" + script.replace('.', '-'));
    if (!Files.isDirectory(repo.resolve(".git"))) {
      create(extracted, repo);
    }
    return repo.toUri().toString();
  }

  private static void create(Path script, Path repo) {
    // Built beside the target and moved into place, so a concurrent caller never sees half a repo.
    Path temporary = null;
    try {
      temporary = Files.createTempDirectory(repo.getParent(), "repo-");
      Files.copy(script, temporary.resolve(script.getFileName()));
      try (Git git = Git.init().setDirectory(temporary.toFile()).setInitialBranch("main").call()) {
        git.add().addFilepattern(script.getFileName().toString()).call();
        git.commit().setMessage("Add " + script.getFileName()).setAuthor(AUTHOR)
            .setCommitter(AUTHOR).setSign(false).call();
      }
      Files.move(temporary, repo, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      if (Files.isDirectory(repo.resolve(".git"))) {
        return;
      }
      throw new UncheckedIOException("cannot create the example repository " + repo, e);
    } catch (GitAPIException e) {
      throw FairingException.of("create example repository", repo.toString(), e.getMessage(),
          "remove " + repo.getParent() + " and try again", e);
    } finally {
      deleteQuietly(temporary);
    }
  }

  private static void deleteQuietly(Path dir) {
    if (dir == null || !Files.exists(dir)) {
      return;
    }
    try (var walk = Files.walk(dir)) {
      walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // A leftover temporary directory in the cache is harmless.
    }
  }
}
