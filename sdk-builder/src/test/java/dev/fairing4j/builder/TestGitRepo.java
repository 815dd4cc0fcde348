package dev.fairing4j.builder;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.lib.PersonIdent;

/** A real git repository made with JGit for a test, reachable at a {@code file://} URL. */
final class TestGitRepo implements AutoCloseable {
  private static final PersonIdent AUTHOR = new PersonIdent("Test", "test@example.com");

  private final Path directory;
  private final Git git;

  private TestGitRepo(Path directory, Git git) {
    this.directory = directory;
    this.git = git;
  }

  static TestGitRepo create(Path directory) {
    try {
      Files.createDirectories(directory);
      return new TestGitRepo(directory,
          Git.init().setDirectory(directory.toFile()).setInitialBranch("main").call());
    } catch (GitAPIException | IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Writes {@code files} (a value starting with "#!" becomes executable) and commits them. */
  String commit(String message, Map<String, String> files) {
    try {
      for (Map.Entry<String, String> file : files.entrySet()) {
        Path path = directory.resolve(file.getKey());
        Files.createDirectories(path.getParent());
        Files.writeString(path, file.getValue());
        if (file.getValue().startsWith("#!")) {
          Files.setPosixFilePermissions(path, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
      }
      git.add().addFilepattern(".").call();
      return git.commit().setMessage(message).setAuthor(AUTHOR).setCommitter(AUTHOR)
          .setSign(false).call().name();
    } catch (GitAPIException | IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Adds a symbolic link and commits it. */
  String commitLink(String link, String target) {
    try {
      Files.createSymbolicLink(directory.resolve(link), Path.of(target));
      git.add().addFilepattern(link).call();
      return git.commit().setMessage("link").setAuthor(AUTHOR).setCommitter(AUTHOR).setSign(false)
          .call().name();
    } catch (GitAPIException | IOException e) {
      throw new IllegalStateException(e);
    }
  }

  void tag(String name, boolean annotated) {
    try {
      var tag = git.tag().setName(name).setAnnotated(annotated).setSigned(false);
      if (annotated) {
        tag.setMessage(name).setTagger(AUTHOR);
      }
      tag.call();
    } catch (GitAPIException e) {
      throw new IllegalStateException(e);
    }
  }

  void branch(String name) {
    try {
      git.branchCreate().setName(name).call();
    } catch (GitAPIException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Allows clients to fetch any reachable commit, as GitHub does. */
  void allowReachableCommits(boolean allow) {
    try {
      var config = git.getRepository().getConfig();
      config.setBoolean("uploadpack", null, "allowReachableSHA1InWant", allow);
      config.save();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  Path directory() {
    return directory;
  }

  String url() {
    return directory.toUri().toString();
  }

  @Override
  public void close() {
    git.close();
  }
}
