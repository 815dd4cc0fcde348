package dev.fairing4j.deployer.local.internal.logs;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads one replica's log file incrementally: each call returns the complete lines appended since
 * the last one, holding back a line whose end has not been written yet. A file that does not exist
 * yet (a replica not started) simply has no lines.
 */
final class LogTail {
  private final Path file;
  private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
  private long position;

  LogTail(Path file) {
    this.file = file;
  }

  /** The complete lines written since the last call. */
  List<String> poll() {
    List<String> lines = new ArrayList<>();
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
      if (channel.size() < position) {
        // the file was replaced: start over
        position = 0;
        partial.reset();
      }
      ByteBuffer buffer = ByteBuffer.allocate(64 * 1024);
      channel.position(position);
      int n;
      while ((n = channel.read(buffer)) > 0) {
        position += n;
        buffer.flip();
        while (buffer.hasRemaining()) {
          byte b = buffer.get();
          if (b == '\n') {
            lines.add(partial.toString(StandardCharsets.UTF_8));
            partial.reset();
          } else {
            partial.write(b);
          }
        }
        buffer.clear();
      }
    } catch (NoSuchFileException e) {
      // not written yet
    } catch (IOException e) {
      // a log that cannot be read now may be readable on the next poll
    }
    return lines;
  }

  /** The held-back unfinished line, if any, once nothing more will be written. */
  List<String> rest() {
    List<String> lines = poll();
    if (partial.size() > 0) {
      lines.add(partial.toString(StandardCharsets.UTF_8));
      partial.reset();
    }
    return lines;
  }
}
