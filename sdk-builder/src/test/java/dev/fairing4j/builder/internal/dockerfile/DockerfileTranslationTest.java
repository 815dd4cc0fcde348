package dev.fairing4j.builder.internal.dockerfile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.InvalidInputException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Golden translations: each instruction, and what Jib cannot do, recorded with its line. */
class DockerfileTranslationTest {
  @TempDir Path dir;

  private final BuildContext prepared = BuildContext.empty()
      .withFile("/app/train.py", ContextFile.ofText("print('train')\n"))
      .withFile("/app/data/a.csv", ContextFile.ofText("1\n"))
      .withFile("/app/data/b.csv", ContextFile.ofText("2\n"))
      .withCommand(List.of("python", "/app/train.py"))
      .withEnv("FROM_PREPROCESSOR", "1")
      .withLabel("org.opencontainers.image.revision", "abc");

  private DockerfilePlan plan(String dockerfile) {
    return plan(dockerfile, Map.of());
  }

  private DockerfilePlan plan(String dockerfile, Map<String, String> args) {
    try {
      Path file = dir.resolve("Dockerfile");
      Files.writeString(file, dockerfile);
      return DockerfileTranslation.of(file, prepared, args, null);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String text(ContextFile file) {
    return new String(file.bytes(), StandardCharsets.UTF_8);
  }

  @Test
  void theSeedShapeCopiesTheScriptAndRunsItsShellFormCmdThroughTheShell() {
    DockerfilePlan plan = plan("""
        FROM pytorch/pytorch:2.3.1-cuda12.1-cudnn8-runtime
        COPY train.py /app/
        CMD python /app/train.py
        """);

    assertThat(plan.base()).isEqualTo("pytorch/pytorch:2.3.1-cuda12.1-cudnn8-runtime");
    assertThat(plan.context().files()).containsOnlyKeys("/app/train.py");
    assertThat(text(plan.context().files().get("/app/train.py"))).isEqualTo("print('train')\n");
    assertThat(plan.context().command()).isEmpty();
    assertThat(plan.context().args()).containsExactly("/bin/sh", "-c", "python /app/train.py");
    assertThat(plan.context().workingDir()).isEqualTo("/");
    assertThat(plan.context().env()).as("the preprocessor's env is not the image's").isEmpty();
    assertThat(plan.context().labels()).containsEntry("org.opencontainers.image.revision",
        "abc");
    assertThat(plan.jibCanBuild()).isTrue();
  }

  @Test
  void entrypointIsTheCommandCmdItsArgumentsAndAnEntrypointAloneDropsTheBaseCmd() {
    DockerfilePlan both = plan("""
        FROM python:3.11-slim
        CMD ["--epochs", "3"]
        ENTRYPOINT ["python", "-u", "/app/train.py"]
        """);
    assertThat(both.context().command()).containsExactly("python", "-u", "/app/train.py");
    assertThat(both.context().args()).containsExactly("--epochs", "3");

    DockerfilePlan alone = plan("FROM python:3.11-slim\nENTRYPOINT python /app/train.py\n");
    assertThat(alone.context().command()).containsExactly("/bin/sh", "-c",
        "python /app/train.py");
    assertThat(alone.context().args()).isEmpty();

    DockerfilePlan shell = plan("""
        FROM python:3.11-slim
        SHELL ["/bin/bash", "-euo", "pipefail", "-c"]
        CMD echo $HOME
        """);
    assertThat(shell.context().args()).containsExactly("/bin/bash", "-euo", "pipefail", "-c",
        "echo $HOME");
  }

  @Test
  void argEnvAndLabelExpandVariablesWithDefaultsBuildArgsAndQuotes() {
    DockerfilePlan plan = plan("""
        ARG BASE=python:3.10-slim
        FROM ${BASE}
        ARG EPOCHS=2
        ARG MODE
        ENV EPOCHS=$EPOCHS MODE=${MODE:-fast} GREETING="hello world" \\
            SINGLE='$EPOCHS stays' ESCAPED=a\\ b
        ENV LEGACY value with spaces
        ENV AFTER=${EPOCHS}x
        LABEL "com.example.team"="ml platform" version=1.0
        MAINTAINER someone@example.com
        """, Map.of("EPOCHS", "5", "BASE", "python:3.11-slim"));

    assertThat(plan.base()).isEqualTo("python:3.11-slim");
    assertThat(plan.context().env()).containsExactlyInAnyOrderEntriesOf(Map.of(
        "EPOCHS", "5", "MODE", "fast", "GREETING", "hello world", "SINGLE", "$EPOCHS stays",
        "ESCAPED", "a b", "LEGACY", "value with spaces", "AFTER", "5x"));
    assertThat(plan.context().labels()).containsEntry("com.example.team", "ml platform")
        .containsEntry("version", "1.0").containsEntry("maintainer", "someone@example.com");
    assertThat(plan.jibCanBuild()).isTrue();
  }

  @Test
  void envValuesOfOneLineDoNotSeeEachOtherAsInDocker() {
    DockerfilePlan plan = plan("""
        FROM scratch
        ENV A=first
        ENV A=second B=$A
        """);
    assertThat(plan.context().env()).containsEntry("A", "second").containsEntry("B", "first");
  }

  @Test
  void workdirUserExposeAndVolumeBecomeImageSettings() {
    DockerfilePlan plan = plan("""
        FROM python:3.11-slim
        WORKDIR /srv
        WORKDIR model
        USER 1000:1000
        EXPOSE 8080 9000/udp 7000-7001
        VOLUME ["/data"]
        VOLUME /cache logs
        COPY train.py .
        """);
    assertThat(plan.context().workingDir()).isEqualTo("/srv/model");
    assertThat(plan.user()).contains("1000:1000");
    assertThat(plan.ports()).containsExactly("8080/tcp", "9000/udp", "7000-7001/tcp");
    assertThat(plan.volumes()).containsExactly("/data", "/cache", "/srv/model/logs");
    assertThat(plan.context().files()).containsOnlyKeys("/srv/model/train.py");
  }

  @Test
  void copyResolvesDirectoriesWildcardsRenamesAndKnownDirectories() throws IOException {
    Files.writeString(dir.resolve("extra.txt"), "extra\n");
    Files.createDirectories(dir.resolve("conf"));
    Files.writeString(dir.resolve("conf/a.yaml"), "a: 1\n");
    Path tool = Files.writeString(dir.resolve("tool.sh"), "#!/bin/sh\n");
    tool.toFile().setExecutable(true);

    DockerfilePlan plan = plan("""
        FROM python:3.11-slim
        WORKDIR /app
        COPY data /app/input
        COPY *.py extra.txt /app/code/
        COPY ["train.py", "/opt/run.py"]
        COPY conf /etc/job
        COPY tool.sh /usr/local/bin
        COPY --chmod=755 train.py /app/exec.py
        COPY data/a.csv /app
        """);

    assertThat(plan.context().files()).containsOnlyKeys("/app/input/a.csv",
        "/app/input/b.csv", "/app/code/train.py", "/app/code/extra.txt", "/opt/run.py",
        "/etc/job/a.yaml", "/usr/local/bin/tool.sh", "/app/exec.py", "/app/a.csv");
    assertThat(plan.context().files().get("/usr/local/bin/tool.sh").isExecutable()).isTrue();
    assertThat(plan.context().files().get("/app/exec.py").isExecutable()).isTrue();
    assertThat(plan.context().files().get("/opt/run.py").isExecutable()).isFalse();
  }

  @Test
  void copyDotTakesThePreprocessorsFilesThenTheDirectoryMinusDockerignore() throws IOException {
    Files.writeString(dir.resolve("train.py"), "print('from disk')\n");
    Files.writeString(dir.resolve("notes.md"), "notes\n");
    Files.createDirectories(dir.resolve(".git"));
    Files.writeString(dir.resolve(".git/HEAD"), "ref\n");
    Files.writeString(dir.resolve("keep.log"), "kept\n");
    Files.writeString(dir.resolve("drop.log"), "dropped\n");
    Files.writeString(dir.resolve(".dockerignore"), """
        # comments and blank lines are ignored

        .git
        *.log
        !keep.log
        data/b.csv
        """);

    DockerfilePlan plan = plan("FROM scratch\nCOPY . /app/\n");

    assertThat(plan.context().files()).containsOnlyKeys("/app/train.py", "/app/data/a.csv",
        "/app/notes.md", "/app/keep.log", "/app/Dockerfile", "/app/.dockerignore");
    assertThat(text(plan.context().files().get("/app/train.py")))
        .as("the preprocessor's file wins over the directory's").isEqualTo("print('train')\n");
  }

  @Test
  void whatJibCannotDoIsRecordedWithItsLine() throws IOException {
    Files.write(dir.resolve("bundle.tar.gz"), new byte[] {0x1f, (byte) 0x8b, 8, 0});
    DockerfilePlan plan = plan("""
        FROM python:3.11-slim
        RUN pip install --no-index --find-links /wheels torch==1.13.1
        COPY --chown=1000 train.py /app/
        COPY --from=builder /out /app/
        ADD https://example.com/data.csv /data/
        ADD bundle.tar.gz /opt/
        COPY <<EOF /app/config.ini
        [section]
        EOF
        HEALTHCHECK CMD curl -f http://localhost/
        ENV PATH=/opt/venv/bin:$PATH
        FROM python:3.11-slim AS second
        COPY nothing-here /x
        """);

    assertThat(plan.jibCanBuild()).isFalse();
    assertThat(plan.beyondJib()).extracting(s -> s.instruction().line() + " " + s.reason())
        .containsExactly(
            "2 runs a command while building",
            "3 --chown: the Jib path writes files owned by root",
            "4 copies from another stage or image",
            "5 adds https://example.com/data.csv from the network",
            "6 ADD unpacks the archive bundle.tar.gz into the image",
            "7 copies a here-document",
            "10 Jib cannot set HEALTHCHECK in an image",
            "12 a second FROM starts another stage (a multi-stage build)",
            "11 reads $PATH, which no ARG or ENV before it declares: in Docker it comes from"
                + " the base image's environment, which a Jib build does not read");
  }

  @Test
  void undeclaredVariablesComeFromOutsideWhenGiven() throws IOException {
    Path file = Files.writeString(dir.resolve("Dockerfile"),
        "FROM scratch\nENV PATH=/opt/venv/bin:$PATH\nCMD [\"python\"]\n");
    DockerfilePlan plan = DockerfileTranslation.of(file, prepared, Map.of(),
        name -> name.equals("PATH") ? "/usr/bin" : null);
    assertThat(plan.context().env()).containsEntry("PATH", "/opt/venv/bin:/usr/bin");
    assertThat(plan.jibCanBuild()).isTrue();
  }

  @Test
  void continuationsCommentsInsideThemAndTheBacktickEscapeDirectiveJoinLines() {
    DockerfilePlan plan = plan("""
        # escape=`
        FROM python:3.11-slim
        # a comment between instructions
        ENV A=1 `
            # a comment inside the continuation is dropped
            B=2
        copy train.py `
             /app/
        cmd ["python", `
             "/app/train.py"]
        """);
    assertThat(plan.context().env()).containsEntry("A", "1").containsEntry("B", "2");
    assertThat(plan.context().files()).containsOnlyKeys("/app/train.py");
    assertThat(plan.context().args()).containsExactly("python", "/app/train.py");
  }

  @Test
  void badInputNamesTheFileTheLineAndTheFix() throws IOException {
    assertThatThrownBy(() -> plan("FROM scratch\nCOPY ../secret.txt /app/\n"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("line 2: the COPY source '../secret.txt' is outside the build"
            + " context").hasMessageContaining("fix: move the file into " + dir);
    assertThatThrownBy(() -> plan("FROM scratch\nCOPY trian.py /app/\n"))
        .hasMessageContaining("line 2: the COPY source 'trian.py' is not in the build context")
        .hasMessageContaining("(data/a.csv, data/b.csv, train.py)");
    Files.writeString(dir.resolve(".dockerignore"), "*.txt\n");
    Files.writeString(dir.resolve("x.txt"), "x");
    assertThatThrownBy(() -> plan("FROM scratch\nCOPY x.txt /app/\n"))
        .hasMessageContaining("'x.txt' is left out by .dockerignore");
    assertThatThrownBy(() -> plan("FROM scratch\nCOPY data/*.csv /app/data\n"))
        .hasMessageContaining("line 2: COPY of more than one file to '/app/data'")
        .hasMessageContaining("end the destination with /");
    assertThatThrownBy(() -> plan("COPY train.py /app/\nFROM scratch\n"))
        .hasMessageContaining("line 1: COPY comes before FROM");
    assertThatThrownBy(() -> plan("FROM scratch\nCOPPY train.py /app/\n"))
        .hasMessageContaining("line 2: 'COPPY' is not a Dockerfile instruction");
    assertThatThrownBy(() -> plan("# just a comment\n"))
        .hasMessageContaining("has no FROM instruction");
    assertThatThrownBy(() -> plan("FROM scratch\nARG EPOCHS=1\n", Map.of("EPOCS", "3")))
        .hasMessageContaining("validate buildArg failed: 'EPOCS' is declared by no ARG");
    assertThatThrownBy(() -> plan("FROM scratch\nEXPOSE http\n"))
        .hasMessageContaining("line 2: 'http' is not a port");
    assertThatThrownBy(() -> DockerfileTranslation.of(dir.resolve("Missing"), prepared,
        Map.of(), null)).hasMessageContaining("validate dockerfile failed: '"
        + dir.resolve("Missing") + "' does not exist");
  }

  @Test
  void theSameInputsGiveTheSameContextDigest() throws IOException {
    Files.writeString(dir.resolve("extra.txt"), "extra\n");
    String dockerfile = "FROM scratch\nCOPY . /app/\nENV B=2 A=1\nCMD [\"python\"]\n";
    String first = plan(dockerfile).context().digest();
    assertThat(plan(dockerfile).context().digest()).isEqualTo(first);
    Files.writeString(dir.resolve("extra.txt"), "changed\n");
    assertThat(plan(dockerfile).context().digest()).isNotEqualTo(first);
  }

  @Test
  void dockerignorePatternsFollowDockersRules() {
    DockerIgnore ignore = DockerIgnore.parse("""
        **/__pycache__
        /build
        docs/*.md
        !docs/README.md
        data?
        """);
    assertThat(ignore.excludes("pkg/__pycache__/x.pyc")).isTrue();
    assertThat(ignore.excludes("__pycache__/x.pyc")).isTrue();
    assertThat(ignore.excludes("build/out.bin")).isTrue();
    assertThat(ignore.excludes("src/build/out.bin")).isFalse();
    assertThat(ignore.excludes("docs/guide.md")).isTrue();
    assertThat(ignore.excludes("docs/README.md")).isFalse();
    assertThat(ignore.excludes("docs/sub/guide.md")).isFalse();
    assertThat(ignore.excludes("data1/x")).isTrue();
    assertThat(ignore.excludes("data/x")).isFalse();
  }

  @Test
  void hereDocumentBodiesAreNotReadAsInstructions() {
    DockerfileSyntax syntax = DockerfileSyntax.parse("""
        FROM scratch
        RUN <<EOT
        FROM this is not an instruction
        EOT
        CMD ["x"]
        """);
    assertThat(syntax.instructions()).extracting(Instruction::keyword)
        .containsExactly("FROM", "RUN", "CMD");
    assertThat(syntax.instructions().get(1).heredocs())
        .containsExactly("FROM this is not an instruction\n");
    assertThat(syntax.instructions().get(2).line()).isEqualTo(5);
  }

  @Test
  void shellWordsHandleQuotesEscapesAndSubstitutionForms() {
    Map<String, String> vars = new TreeMap<>(Map.of("SET", "v", "EMPTY", ""));
    ShellWords words = new ShellWords('\\', vars::get, 1);
    assertThat(words.words("a \"b c\" 'd e' f\\ g")).containsExactly("a", "b c", "d e", "f g");
    assertThat(words.word("${SET:-x}${UNSET:-y}${EMPTY:-z}${EMPTY-w}")).isEqualTo("vyz");
    assertThat(words.word("${SET:+alt}${UNSET:+alt}${EMPTY+set}")).isEqualTo("altset");
    assertThat(words.word("\\$SET \"$SET\" '$SET' $ ${SET}")).isEqualTo("$SET v $SET $ v");
    assertThatThrownBy(() -> words.word("${UNSET:?must be given}"))
        .hasMessageContaining("must be given");
    assertThat(Optional.ofNullable(words.word(""))).contains("");
  }
}
