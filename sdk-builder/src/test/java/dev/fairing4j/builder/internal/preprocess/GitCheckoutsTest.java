package dev.fairing4j.builder.internal.preprocess;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.builder.internal.preprocess.GitCheckouts.Fetch;
import dev.fairing4j.builder.internal.preprocess.GitCheckouts.Source;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalInt;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.PersonIdent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GitCheckoutsTest {
  private static final PersonIdent AUTHOR = new PersonIdent("Test", "test@example.com");

  @TempDir Path temp;

  private String commit(Git git, String file, String content) throws Exception {
    Path path = git.getRepository().getWorkTree().toPath().resolve(file);
    Files.createDirectories(path.getParent());
    Files.writeString(path, content);
    git.add().addFilepattern(".").call();
    return git.commit().setMessage(file).setAuthor(AUTHOR).setCommitter(AUTHOR).setSign(false)
        .call().name();
  }

  private static Source source(String url, GitRef ref, int protocol) {
    return new Source(url, ref, Optional.empty(), Optional.empty(),
        protocol < 0 ? OptionalInt.empty() : OptionalInt.of(protocol));
  }

  @Test
  void exactOldCommitIsFetchedAloneAndThenServedFromDisk() throws Exception {
    try (Git git = Git.init().setDirectory(temp.resolve("origin").toFile())
        .setInitialBranch("main").call()) {
      String old = commit(git, "train.py", "print(1)\n");
      commit(git, "train.py", "print(2)\n");
      String url = temp.resolve("origin").toUri().toString();

      // JGit's in-process upload pack (file://) hands out any commit; GitDaemonIT covers a
      // server that refuses.
      var fetched = GitCheckouts.checkout(source(url, GitRef.commit(old), -1), temp.resolve("b"));
      var again = GitCheckouts.checkout(source(url, GitRef.commit(old), -1), temp.resolve("b"));

      assertThat(fetched.fetch()).isEqualTo(Fetch.SHALLOW);
      assertThat(again.fetch()).isEqualTo(Fetch.CACHED);
      assertThat(again.directory()).isEqualTo(fetched.directory());
      assertThat(fetched.commit()).isEqualTo(old);
      assertThat(Files.readString(fetched.directory().resolve("train.py"))).isEqualTo("print(1)\n");
    }
  }

  @Test
  void symbolicLinksAreLeftOutOfTheTree() throws Exception {
    try (Git git = Git.init().setDirectory(temp.resolve("origin").toFile())
        .setInitialBranch("main").call()) {
      Path work = temp.resolve("origin");
      Files.createSymbolicLink(work.resolve("passwd"), Path.of("/etc/passwd"));
      commit(git, "train.py", "print(1)\n");

      var checkout = GitCheckouts.checkout(source(work.toUri().toString(),
          GitRef.branch("main"), -1), temp.resolve("trees"));

      assertThat(checkout.directory().resolve("train.py")).exists();
      assertThat(checkout.directory().resolve("passwd")).doesNotExist();
      try (var entries = Files.list(temp.resolve("trees"))) {
        assertThat(entries.map(p -> p.getFileName().toString()))
            .containsExactly(checkout.commit());  // no half-written temporary directory left
      }
    }
  }

  @Test
  void urlsLoseTheirCredentials() throws IOException {
    assertThat(GitUrls.withoutCredentials("https://u:p@host/x.git"))
        .isEqualTo("https://host/x.git");
    assertThat(GitUrls.withoutCredentials("https://token@host/x.git"))
        .isEqualTo("https://host/x.git");
    assertThat(GitUrls.withoutCredentials("git@github.com:org/x.git"))
        .isEqualTo("github.com:org/x.git");
    assertThat(GitUrls.withoutCredentials("file:///srv/x")).isEqualTo("file:///srv/x");
  }
}
