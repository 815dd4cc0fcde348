package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressListener;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every error the builder's public calls throw is a {@code FairingException}; bad input is an
 * {@link InvalidInputException} naming the field and the fix, raised before anything is built or
 * sent. Each case here escaped as something else (InvalidPathException, a Jib I/O error after
 * the build, the listener's own exception) or went unnoticed (a cache at {@code /} wrote into
 * the working directory). Targets are tar files or unreachable addresses: nothing is pushed.
 */
class BuilderErrorsTest {
  @TempDir Path dir;

  private final BuildContext context = BuildContext.empty()
      .withFile("/app/hello.txt", ContextFile.ofText("hello\n"));

  private JibImageBuilder toTar(Path tar) {
    return Builders.scratch().toTar(tar).baseLayerCache(dir.resolve("cache"));
  }

  private static InvalidInputException invalid(Throwable thrown, String field) {
    assertThat(thrown).isInstanceOf(InvalidInputException.class);
    InvalidInputException e = (InvalidInputException) thrown;
    assertThat(e.field()).as(e.getMessage()).isEqualTo(field);
    assertThat(e.fix()).isNotBlank();
    return e;
  }

  @Test
  void aDirectoryWhereTheTarFileShouldGoIsBadInputBeforeTheBuild() throws Exception {
    Path directory = Files.createDirectory(dir.resolve("out"));
    Path regular = Files.writeString(dir.resolve("file"), "x");

    invalid(catchThrowable(() -> toTar(directory).validate(context)), "toTar");
    InvalidInputException e = invalid(catchThrowable(() -> toTar(directory).build(context,
        ProgressListener.NONE)), "toTar");
    assertThat(e.getMessage()).contains(directory.toString(), "is a directory");
    invalid(catchThrowable(() -> toTar(regular.resolve("app.tar")).build(context,
        ProgressListener.NONE)), "toTar");
    assertThat(dir.resolve("cache-staging")).as("stopped before staging").doesNotExist();
  }

  @Test
  void aFileWhereTheCacheDirectoryShouldGoIsBadInput() throws Exception {
    Path regular = Files.writeString(dir.resolve("cache-file"), "x");

    InvalidInputException e = invalid(catchThrowable(() -> Builders.scratch()
        .toTar(dir.resolve("app.tar")).baseLayerCache(regular).build(context,
            ProgressListener.NONE)), "baseLayerCache");
    assertThat(e.getMessage()).contains(regular.toString(), "not a directory");
    assertThat(dir.resolve("app.tar")).doesNotExist();
  }

  @Test
  void theRootAsCacheIsRefusedInsteadOfCachingInTheWorkingDirectory() {
    InvalidInputException e = invalid(catchThrowable(() -> Builders.scratch()
        .baseLayerCache(Path.of("/"))), "baseLayerCache");
    assertThat(e.fix()).contains("directory of its own");
  }

  @Test
  void aDirectoryGivenAsCaCertificateIsBadInputAtValidation() throws Exception {
    Path directory = Files.createDirectory(dir.resolve("certs"));

    InvalidInputException e = invalid(catchThrowable(() -> toTar(dir.resolve("app.tar"))
        .trustedCertificates(directory).validate(context)), "trustedCertificates");
    assertThat(e.getMessage()).contains("is a directory");
  }

  @Test
  void aRegistryJibCannotAddressIsBadInputWhereItIsNamed() {
    invalid(catchThrowable(() -> Builders.scratch().pushTo("[::1]:5000/team/app")), "pushTo");
    InvalidInputException base = invalid(catchThrowable(() ->
        Builders.jib("[::1]:5000/base/tiny:1")), "baseImage");
    assertThat(base.fix()).contains("localhost");
  }

  @Test
  void aContextFileGoneOrReplacedByADirectoryAfterPrepareIsBadInputBeforeTheBuild()
      throws Exception {
    Path script = Files.writeString(dir.resolve("train.py"), "print(1)\n");
    Path model = Files.writeString(dir.resolve("model.py"), "x = 1\n");
    BuildContext prepared = Preprocessors.python(script).files(model).prepare();
    Files.delete(model);

    InvalidInputException gone = invalid(catchThrowable(() -> toTar(dir.resolve("a.tar"))
        .build(prepared, ProgressListener.NONE)), "context");
    assertThat(gone.getMessage()).contains(model.toString(), "/app/model.py",
        "does not exist any more");

    Files.createDirectory(model);
    InvalidInputException directory = invalid(catchThrowable(() -> toTar(dir.resolve("b.tar"))
        .build(prepared, ProgressListener.NONE)), "context");
    assertThat(directory.getMessage()).contains(model.toString());
    assertThat(dir.resolve("a.tar")).doesNotExist();
    assertThat(dir.resolve("b.tar")).doesNotExist();
  }

  @Test
  void aListenerThatThrowsNeitherFailsTheBuildNorEscapesFromIt() {
    Path tar = dir.resolve("app.tar");

    Throwable thrown = catchThrowable(() -> toTar(tar).build(context, event -> {
      throw new IllegalStateException("a bug in the caller's progress display");
    }));

    assertThat(thrown).isNull();
    assertThat(tar).isRegularFile();
  }

  /**
   * A registry whose 401 names a token realm that is no URL. A real registry cannot be made to
   * answer that, so a stand-in on a plain socket does: it drops TLS hellos (as a plain-HTTP
   * registry does, so clients fall back to HTTP on loopback) and answers every HTTP request with
   * that 401. What is checked is only that the failure reaches the caller as an
   * {@link ImageBuildException} naming the registry.
   */
  @Test
  void aRegistryThatNamesABrokenTokenRealmIsAnImageBuildException() throws Exception {
    try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      Thread answering = new Thread(() -> answerWithBrokenRealm(server), "broken-realm");
      answering.setDaemon(true);
      answering.start();
      String registry = "127.0.0.1:" + server.getLocalPort();

      Throwable thrown = catchThrowable(() -> Builders.scratch().pushTo(registry + "/team/app")
          .baseLayerCache(dir.resolve("cache")).build(context, ProgressListener.NONE));

      assertThat(thrown).isInstanceOfSatisfying(ImageBuildException.class,
          e -> assertThat(e.subject()).contains(registry));
    }
  }

  private static void answerWithBrokenRealm(ServerSocket server) {
    while (!server.isClosed()) {
      try (Socket connection = server.accept()) {
        InputStream in = connection.getInputStream();
        int first = in.read();
        if (first == 0x16) {
          continue;  // a TLS handshake record: hang up, as a plain-HTTP server would
        }
        String head = new String(new byte[] {(byte) first}, StandardCharsets.ISO_8859_1);
        while (!head.endsWith("\r\n\r\n")) {
          int next = in.read();
          if (next < 0) {
            break;
          }
          head += (char) next;
        }
        connection.getOutputStream().write(("HTTP/1.1 401 Unauthorized\r\n"
            + "WWW-Authenticate: Bearer realm=\"http://[not a url\",service=\"broken\"\r\n"
            + "Content-Length: 0\r\nConnection: close\r\n\r\n")
            .getBytes(StandardCharsets.ISO_8859_1));
      } catch (IOException closedOrReset) {
        // the test is over, or the client gave up on this connection
      }
    }
  }

  @Test
  void aGitPathThatIsNoPathIsBadInputAtTheCall() {
    TestGitRepo repo = TestGitRepo.create(dir.resolve("origin"));
    repo.commit("first", Map.of("train.py", "print(1)\n"));
    GitPreprocessor git = Preprocessors.git(repo.url()).cacheDirectory(dir.resolve("git"));

    for (String bad : new String[] {"a\0b", "/etc/train.py", "../train.py"}) {
      invalid(catchThrowable(() -> git.entry(bad).prepare()), "entry");
    }
    Stream.of("a\0b", "/abs").forEach(bad -> invalid(catchThrowable(() ->
        git.subdirectory(bad).entry("train.py").prepare()), "subdirectory"));
  }
}
