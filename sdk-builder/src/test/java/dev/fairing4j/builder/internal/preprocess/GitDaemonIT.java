package dev.fairing4j.builder.internal.preprocess;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.builder.GitPreprocessor;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.builder.internal.preprocess.GitCheckouts.Fetch;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.testing.Tools;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.PersonIdent;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** git:// against the real {@code git daemon}, whose protocol v0 refuses wants for old commits. */
class GitDaemonIT {
  private static final PersonIdent AUTHOR = new PersonIdent("Test", "test@example.com");

  @TempDir static Path root;
  static Process daemon;
  static String url;
  static String old;
  static String head;

  @BeforeAll
  static void startDaemon() throws Exception {
    Path git = Tools.require("git", "git");
    Path repo = root.resolve("served/train.git");
    try (Git work = Git.init().setDirectory(repo.toFile()).setInitialBranch("main").call()) {
      old = commit(work, "print('old')\n");
      head = commit(work, "print('head')\n");
      work.tag().setName("v2").setSigned(false).setAnnotated(false).call();
    }
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    List<String> command = new ArrayList<>();
    Tools.find("setpriv").ifPresent(setpriv -> command.addAll(List.of(setpriv.toString(),
        "--pdeathsig", "KILL", "--")));
    command.addAll(List.of(git.toString(), "daemon", "--reuseaddr", "--export-all",
        "--listen=127.0.0.1", "--port=" + port, "--base-path=" + root.resolve("served"),
        root.resolve("served").toString()));
    daemon = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(root.resolve("daemon.log").toFile()).start();
    waitForPort(port);
    url = "git://127.0.0.1:" + port + "/train.git";
  }

  @AfterAll
  static void stopDaemon() throws InterruptedException {
    if (daemon != null) {
      daemon.destroy();
      if (!daemon.waitFor(5, TimeUnit.SECONDS)) {
        daemon.destroyForcibly().waitFor();
      }
    }
  }

  private static String commit(Git git, String content) throws Exception {
    Files.writeString(git.getRepository().getWorkTree().toPath().resolve("train.py"), content);
    git.add().addFilepattern(".").call();
    return git.commit().setMessage(content).setAuthor(AUTHOR).setCommitter(AUTHOR)
        .setSign(false).call().name();
  }

  private static void waitForPort(int port) throws Exception {
    for (int attempt = 0; attempt < 100; attempt++) {
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 100);
        return;
      } catch (IOException e) {
        Thread.sleep(50);
      }
    }
    throw new AssertionError("git daemon did not start: " + Files.readString(
        root.resolve("daemon.log")));
  }

  @Test
  void branchesTagsAndCommitsOverGitProtocol(@TempDir Path cache) {
    BuildContext tagged = Preprocessors.git(url).tag("v2").entry("train.py")
        .cacheDirectory(cache).prepare();
    BuildContext pinned = Preprocessors.git(url).commit(old).entry("train.py")
        .cacheDirectory(cache).prepare();

    assertThat(tagged.labels()).containsEntry(GitPreprocessor.REVISION_LABEL, head)
        .containsEntry(GitPreprocessor.SOURCE_LABEL, url);
    assertThat(new String(pinned.files().get("/app/train.py").bytes())).isEqualTo("print('old')\n");
  }

  @Test
  void aServerThatRefusesTheExactCommitGetsAFullFetch(@TempDir Path cache) {
    var refused = GitCheckouts.checkout(new GitCheckouts.Source(url, GitRef.commit(old),
        Optional.empty(), Optional.empty(), OptionalInt.of(0)), cache.resolve("v0"));
    var allowed = GitCheckouts.checkout(new GitCheckouts.Source(url, GitRef.commit(old),
        Optional.empty(), Optional.empty(), OptionalInt.empty()), cache.resolve("v2"));

    assertThat(refused.fetch()).isEqualTo(Fetch.FULL);
    assertThat(allowed.fetch()).isEqualTo(Fetch.SHALLOW);
    assertThat(refused.commit()).isEqualTo(old).isEqualTo(allowed.commit());
  }

  /** Prepares a git context in a fresh JVM and prints how long it took. */
  public static final class FreshPrepare {
    public static void main(String[] args) {
      long start = System.nanoTime();
      BuildContext context = Preprocessors.git(args[0]).branch("main").entry("train.py")
          .cacheDirectory(Path.of(args[1])).prepare();
      System.out.println("revision=" + context.labels().get(GitPreprocessor.REVISION_LABEL));
      System.out.println("millis=" + (System.nanoTime() - start) / 1_000_000);
    }
  }

  @Test
  void aFreshJvmWithAnEmptyHomeNeitherProbesTheFileSystemNorWritesJgitConfig(@TempDir Path home)
      throws Exception {
    String classPath = System.getProperty("surefire.test.class.path",
        System.getProperty("java.class.path"));
    ProcessBuilder builder = new ProcessBuilder(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp", classPath,
        "-Duser.home=" + home, "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
        FreshPrepare.class.getName(), url, home.resolve("trees").toString())
        .redirectErrorStream(true);
    builder.environment().put("XDG_CONFIG_HOME", home.resolve(".config").toString());
    builder.environment().put("HOME", home.toString());
    long start = System.nanoTime();
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes());
    int exit = process.waitFor();
    long wallMillis = (System.nanoTime() - start) / 1_000_000;

    assertThat(exit).as(output).isZero();
    assertThat(output).contains("revision=" + head);
    // The probe (about 3 s here) writes its result there: no file, no probe. The time is printed
    // for the record, not asserted: speed belongs to benchmarks.
    assertThat(home.resolve(".config/jgit")).as("JGit's file-system probe result").doesNotExist();
    long prepareMillis = Long.parseLong(output.replaceAll("(?s).*millis=(\\d+).*", "$1"));
    System.out.printf("bench.git.fresh_jvm_prepare_ms=%d wall_ms=%d%n", prepareMillis, wallMillis);
  }
}
