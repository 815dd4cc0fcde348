package dev.fairing4j.deployer.kubernetes.internal.builds;

import dev.fairing4j.core.ContextFile;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeSet;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;

/**
 * Writes a build context as a POSIX tar stream (what Kaniko reads from {@code tar://stdin}) with
 * commons-compress: each parent directory first, then the files in name order, with modes 755
 * or 644, owner root and time 0, so the same context is the same stream. Names longer than the
 * ustar field carry a PAX {@code path} record.
 */
public final class ContextTar {
  private static final int BLOCK = 512;

  private ContextTar() {}

  /** Writes {@code files} (by relative path) to {@code out}; does not close it. */
  public static long write(SortedMap<String, ContextFile> files, OutputStream out)
      throws IOException {
    TreeSet<String> directories = new TreeSet<>();
    for (String name : files.keySet()) {
      for (int slash = name.indexOf('/'); slash > 0; slash = name.indexOf('/', slash + 1)) {
        directories.add(name.substring(0, slash));
      }
    }
    // Records of one block: the stream ends with the two end blocks, unpadded. Not closed,
    // which would close out.
    TarArchiveOutputStream tar = new TarArchiveOutputStream(out, BLOCK);
    tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
    tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
    for (String directory : directories) {
      tar.putArchiveEntry(entry(directory + "/", 0, 0755));
      tar.closeArchiveEntry();
    }
    for (Map.Entry<String, ContextFile> file : files.entrySet()) {
      long size = file.getValue().size();
      tar.putArchiveEntry(entry(file.getKey(), size, file.getValue().isExecutable() ? 0755
          : 0644));
      long copied;
      try (InputStream in = file.getValue().open()) {
        copied = copy(in, tar, size);
      }
      if (copied != size) {
        throw new IOException(file.getKey() + " changed while it was sent (" + size
            + " bytes expected, " + copied + " read)");
      }
      tar.closeArchiveEntry();
    }
    tar.finish();
    tar.flush();
    return tar.getBytesWritten();
  }

  private static TarArchiveEntry entry(String name, long size, int mode) {
    TarArchiveEntry entry = new TarArchiveEntry(name);
    entry.setSize(size);
    entry.setMode(mode);
    entry.setIds(0, 0);
    entry.setNames("root", "root");
    entry.setModTime(0L);
    return entry;
  }

  /** Writes at most {@code size} bytes of {@code in}; counts all it has. */
  private static long copy(InputStream in, OutputStream out, long size) throws IOException {
    byte[] buffer = new byte[64 << 10];
    long copied = 0;
    for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
      long room = size - copied;
      if (room > 0) {
        out.write(buffer, 0, (int) Math.min(n, room));
      }
      copied += n;
    }
    return copied;
  }
}
