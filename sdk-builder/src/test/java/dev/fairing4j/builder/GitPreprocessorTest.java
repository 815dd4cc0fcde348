package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.Layer;
import dev.fairing4j.core.Secret;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GitPreprocessorTest {
  @TempDir Path temp;
  private TestGitRepo repo;
  private Path cache;
  private String first;
  private String second;

  @BeforeEach
  void createRepository() {
    repo = TestGitRepo.create(temp.resolve("origin"));
    cache = temp.resolve("cache");
    first = repo.commit("first", Map.of("train.py", "print('v1')\n",
        "training/job.py", "print('sub v1')\n", "requirements.txt", "numpy\n"));
    repo.tag("v1", true);
    repo.tag("light", false);
    repo.branch("stable");
    second = repo.commit("second", Map.of("train.py", "print('v2')\n",
        "run.sh", "#!/bin/sh\necho hi\n"));
  }

  private GitPreprocessor git() {
    return Preprocessors.git(repo.url()).cacheDirectory(cache);
  }

  private static String text(BuildContext context, String path) {
    return new String(context.files().get(path).bytes(), StandardCharsets.UTF_8);
  }

  @Test
  void defaultBranchCarriesRevisionAndSourceLabels() {
    BuildContext context = git().entry("train.py").files(Path.of("run.sh")).prepare();

    assertThat(text(context, "/app/train.py")).isEqualTo("print('v2')\n");
    assertThat(context.command()).containsExactly("python", "-u", "/app/train.py");
    assertThat(context.labels()).containsEntry(GitPreprocessor.REVISION_LABEL, second)
        .containsEntry(GitPreprocessor.SOURCE_LABEL, repo.url());
    assertThat(context.files().get("/app/run.sh").isExecutable()).isTrue();
  }

  @Test
  void branchTagsAndExactCommitsCheckOutTheirOwnContent() {
    assertThat(text(git().branch("stable").entry("train.py").prepare(), "/app/train.py"))
        .isEqualTo("print('v1')\n");
    assertThat(git().tag("v1").entry("train.py").prepare().labels())
        .containsEntry(GitPreprocessor.REVISION_LABEL, first);
    assertThat(git().tag("light").entry("train.py").prepare().labels())
        .containsEntry(GitPreprocessor.REVISION_LABEL, first);
    BuildContext pinned = git().commit(first).entry("train.py").prepare();
    assertThat(text(pinned, "/app/train.py")).isEqualTo("print('v1')\n");
    assertThat(pinned.labels()).containsEntry(GitPreprocessor.REVISION_LABEL, first);
    assertThat(git().commit(first.substring(0, 10)).entry("train.py").prepare().labels())
        .containsEntry(GitPreprocessor.REVISION_LABEL, first);
  }

  @Test
  void subdirectoryIsTheBaseAndRequirementsComeFromTheCheckout() {
    BuildContext context = git().commit(first).subdirectory("training").entry("job.py")
        .requirements(Path.of("../requirements.txt")).prepare();

    assertThat(context.files(Layer.CODE)).containsOnlyKeys("/app/job.py");
    assertThat(context.files(Layer.REQUIREMENTS)).containsKeys("/app/requirements.txt");
  }

  @Test
  void aPinnedCommitOnDiskNeedsNoServerAtAll() throws IOException {
    GitPreprocessor pinned = git().commit(first).entry("train.py");
    String digest = pinned.prepare().digest();
    repo.close();
    try (Stream<Path> paths = Files.walk(repo.directory())) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    }

    assertThat(repo.directory()).doesNotExist();
    assertThat(pinned.prepare().digest()).isEqualTo(digest);
  }

  @Test
  void unknownRefsAreInvalidInputNamingTheRef() {
    assertThatThrownBy(() -> git().branch("nope").entry("train.py").prepare())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("branch");
          assertThat(e.getMessage()).contains("'nope' does not exist", "main", "stable");
        });
    assertThatThrownBy(() -> git().tag("v9").entry("train.py").prepare())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("tag");
          assertThat(e.getMessage()).contains("'v9'", "light", "v1");
        });
    String unknown = "0123456789abcdef0123456789abcdef01234567";
    assertThatThrownBy(() -> git().commit(unknown).entry("train.py").prepare())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("commit");
          assertThat(e.getMessage()).contains(unknown);
        });
  }

  @Test
  void aWrongEntryNamesTheRepositoryRefAndPathAndWhatIsNearIt() {
    assertThatThrownBy(() -> git().tag("v1").entry("nope.py").prepare())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("entry");
          assertThat(e.getMessage()).contains("'nope.py' is not a file in " + repo.url()
              + " at tag v1 (commit " + first.substring(0, 12) + ")")
              .doesNotContain(cache.toString(), "git-trees");
          assertThat(e.fix()).contains("its top level has: train.py, requirements.txt,"
              + " training/");
        });
    assertThatThrownBy(() -> git().entry("training/jobs.py").prepare())
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.getMessage()).contains("'training/jobs.py' is not a file in ",
              "at default branch");
          assertThat(e.fix()).contains("'training/' has: job.py");
        });
  }

  @Test
  void badInputFailsBeforeAnyFetch() {
    assertThatThrownBy(() -> git().prepare())
        .isInstanceOfSatisfying(InvalidInputException.class,
            e -> assertThat(e.field()).isEqualTo("entry"));
    assertThatThrownBy(() -> git().commit("main"))
        .isInstanceOfSatisfying(InvalidInputException.class,
            e -> assertThat(e.field()).isEqualTo("commit"));
    assertThatThrownBy(() -> git().subdirectory("../etc"))
        .isInstanceOfSatisfying(InvalidInputException.class,
            e -> assertThat(e.field()).isEqualTo("subdirectory"));
    assertThatThrownBy(() -> Preprocessors.git("https://"))
        .isInstanceOfSatisfying(InvalidInputException.class,
            e -> assertThat(e.field()).isEqualTo("url"));
    assertThatThrownBy(() -> git().entry("missing.py").prepare())
        .isInstanceOfSatisfying(InvalidInputException.class,
            e -> assertThat(e.field()).isEqualTo("entry"));
    assertThatThrownBy(() -> git().subdirectory("nothing").entry("x.py").prepare())
        .isInstanceOfSatisfying(InvalidInputException.class,
            e -> assertThat(e.field()).isEqualTo("subdirectory"));
  }

  @Test
  void aMissingRepositoryIsAFairingExceptionNamingTheUrl() {
    String missing = temp.resolve("no-such-repo").toUri().toString();

    assertThatThrownBy(() -> Preprocessors.git(missing).cacheDirectory(cache).entry("t.py")
        .prepare())
        .isInstanceOfSatisfying(FairingException.class, e -> {
          assertThat(e).isNotInstanceOf(InvalidInputException.class);
          assertThat(e.subject()).contains(missing);
          assertThat(e.hint()).isPresent();
        });
  }

  @Test
  void credentialsNeverShowInToStringLabelsOrErrors() {
    GitPreprocessor withUrlCredentials =
        Preprocessors.git("https://alice:hunter2@git.example.invalid/team/repo.git")
            .credentials("bob", Secret.of("t0ken-s3cret")).entry("train.py");

    assertThat(withUrlCredentials.url()).isEqualTo("https://git.example.invalid/team/repo.git");
    assertThat(withUrlCredentials.toString()).doesNotContain("hunter2", "t0ken-s3cret", "alice")
        .contains("git.example.invalid", "user=bob");
    assertThatThrownBy(withUrlCredentials.cacheDirectory(cache)::prepare)
        .isInstanceOf(FairingException.class)
        .satisfies(e -> {
          StringBuilder all = new StringBuilder();
          for (Throwable t = e; t != null; t = t.getCause()) {
            all.append(t).append('\n');
          }
          assertThat(all.toString()).doesNotContain("hunter2", "t0ken-s3cret")
              .contains("git.example.invalid");
        });
  }

  @Test
  void fluentCallsAreImmutable() {
    GitPreprocessor base = git().entry("train.py");
    GitPreprocessor tagged = base.tag("v1");

    assertThat(base).isNotEqualTo(tagged);
    assertThat(base.prepare().labels()).containsEntry(GitPreprocessor.REVISION_LABEL, second);
    assertThat(tagged.toString()).contains("tag v1", "entry=train.py");
  }
}
