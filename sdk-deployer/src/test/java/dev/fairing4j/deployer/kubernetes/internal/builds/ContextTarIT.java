package dev.fairing4j.deployer.kubernetes.internal.builds;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.ContextFile;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The context stream, read back by GNU tar: names (long ones too), contents and modes. */
class ContextTarIT {
  @TempDir Path dir;

  @Test
  void gnuTarExtractsEveryFileWithItsContentAndModeAndTheSameContextGivesTheSameBytes()
      throws Exception {
    String deep = "very/" + "deep-directory-name/".repeat(8) + "file-with-a-long-name.txt";
    String longLeaf = "x/" + "n".repeat(120) + ".py";
    SortedMap<String, ContextFile> files = new TreeMap<>();
    files.put("train.py", ContextFile.ofText("print('hi')\n"));
    files.put("bin/run.sh", ContextFile.ofText("#!/bin/sh\necho run\n").executable(true));
    files.put(deep, ContextFile.ofText("deep\n"));
    files.put(longLeaf, ContextFile.ofText("long leaf\n"));
    files.put("empty.txt", ContextFile.of(new byte[0]));
    files.put("block.bin", ContextFile.of(new byte[512]));

    ByteArrayOutputStream first = new ByteArrayOutputStream();
    long written = ContextTar.write(files, first);
    ByteArrayOutputStream second = new ByteArrayOutputStream();
    ContextTar.write(files, second);

    assertThat(written).isEqualTo(first.size());
    assertThat(first.toByteArray()).isEqualTo(second.toByteArray());
    Path tar = Files.write(dir.resolve("context.tar"), first.toByteArray());
    Path out = Files.createDirectories(dir.resolve("out"));
    Process process = new ProcessBuilder("tar", "-xf", tar.toString(), "-C", out.toString())
        .redirectErrorStream(true).start();
    assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as(new String(process.getInputStream().readAllBytes(),
        StandardCharsets.UTF_8)).isZero();
    for (var entry : files.entrySet()) {
      assertThat(out.resolve(entry.getKey())).hasBinaryContent(entry.getValue().bytes());
    }
    assertThat(Files.isExecutable(out.resolve("bin/run.sh"))).isTrue();
    assertThat(Files.isExecutable(out.resolve("train.py"))).isFalse();
  }
}
