package dev.fairing4j.deployer.local.internal.runtime;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies a replica's merged stdout and stderr into its log file, one timestamped line at a time,
 * until the output closes. Lines are flushed as soon as the replica pauses, so followers see them
 * at once; an endless line is cut at 64 KiB rather than held in memory.
 */
public final class LogPump {
  private static final Logger LOG = LoggerFactory.getLogger(LogPump.class);
  private static final int MAX_LINE = 64 * 1024;

  private LogPump() {}

  /** Copies {@code in} to {@code file} (appending) until end of stream. */
  public static void copy(InputStream in, Path file) {
    try (InputStream input = new BufferedInputStream(in, 16 * 1024);
        OutputStream raw = Files.newOutputStream(file, StandardOpenOption.CREATE,
            StandardOpenOption.APPEND);
        Writer out = new java.io.BufferedWriter(
            new java.io.OutputStreamWriter(raw, StandardCharsets.UTF_8), 16 * 1024)) {
      ByteArrayOutputStream line = new ByteArrayOutputStream(256);
      int b;
      while ((b = input.read()) >= 0) {
        if (b == '\n' || line.size() >= MAX_LINE) {
          if (b != '\n') {
            line.write(b);
          }
          write(out, line);
          if (input.available() == 0) {
            out.flush();
          }
        } else {
          line.write(b);
        }
      }
      if (line.size() > 0) {
        write(out, line);
      }
      out.flush();
    } catch (IOException e) {
      // The replica's output is its own business; a full disk must not take the job down.
      LOG.warn("cannot copy replica output to {}: {}", file, e.toString());
      drain(in);
    }
  }

  private static void write(Writer out, ByteArrayOutputStream line) throws IOException {
    String text = line.toString(StandardCharsets.UTF_8);
    if (text.endsWith("\r")) {
      text = text.substring(0, text.length() - 1);
    }
    out.write(LogFormat.format(Instant.now(), text));
    line.reset();
  }

  private static void drain(InputStream in) {
    try {
      in.transferTo(OutputStream.nullOutputStream());
    } catch (IOException ignored) {
      // the process is gone
    }
  }
}
