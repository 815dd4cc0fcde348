package dev.fairing4j.deployer.kubernetes.internal.builds;

import dev.fairing4j.core.ContextFile;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeSet;

/**
 * Writes a build context as a POSIX tar stream (what Kaniko reads from {@code tar://stdin}):
 * each parent directory first, then the files in name order, with modes 755 or 644, owner root
 * and time 0, so the same context is the same stream. Names longer than the ustar fields carry a
 * PAX {@code path} record.
 */
public final class ContextTar {
  private static final int BLOCK = 512;

  private ContextTar() {}

  /** Writes {@code files} (by relative path) to {@code out}; does not close it. */
  public static long write(SortedMap<String, ContextFile> files, OutputStream out)
      throws IOException {
    long written = 0;
    TreeSet<String> directories = new TreeSet<>();
    for (String name : files.keySet()) {
      for (int slash = name.indexOf('/'); slash > 0; slash = name.indexOf('/', slash + 1)) {
        directories.add(name.substring(0, slash));
      }
    }
    for (String directory : directories) {
      written += header(out, directory + "/", 0, 0755, '5');
    }
    for (Map.Entry<String, ContextFile> entry : files.entrySet()) {
      ContextFile file = entry.getValue();
      long size = file.size();
      written += header(out, entry.getKey(), size, file.isExecutable() ? 0755 : 0644, '0');
      long copied;
      try (InputStream in = file.open()) {
        copied = in.transferTo(out);
      }
      if (copied != size) {
        throw new IOException(entry.getKey() + " changed while it was sent (" + size
            + " bytes expected, " + copied + " read)");
      }
      written += copied + pad(out, copied);
    }
    out.write(new byte[2 * BLOCK]);
    return written + 2 * BLOCK;
  }

  private static long header(OutputStream out, String name, long size, int mode, char type)
      throws IOException {
    long written = 0;
    byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
    String shortName = name;
    String prefix = "";
    if (bytes.length > 100) {
      int split = name.lastIndexOf('/', name.length() - 2);
      while (split > 0 && (name.substring(split + 1).getBytes(StandardCharsets.UTF_8).length > 100
          || name.substring(0, split).getBytes(StandardCharsets.UTF_8).length > 155)) {
        split = name.lastIndexOf('/', split - 1);
      }
      if (split > 0) {
        prefix = name.substring(0, split);
        shortName = name.substring(split + 1);
      } else {
        written += pax(out, name);
        shortName = "pax-named";
      }
    }
    byte[] header = new byte[BLOCK];
    put(header, 0, 100, shortName);
    put(header, 100, 8, octal(mode, 7));
    put(header, 108, 8, octal(0, 7));
    put(header, 116, 8, octal(0, 7));
    put(header, 124, 12, octal(size, 11));
    put(header, 136, 12, octal(0, 11));
    header[156] = (byte) type;
    put(header, 257, 6, "ustar");
    put(header, 263, 2, "00");
    put(header, 265, 32, "root");
    put(header, 297, 32, "root");
    put(header, 345, 155, prefix);
    for (int i = 148; i < 156; i++) {
      header[i] = ' ';
    }
    long sum = 0;
    for (byte b : header) {
      sum += b & 0xff;
    }
    put(header, 148, 8, octal(sum, 6) + "\0 ");
    out.write(header);
    return written + BLOCK;
  }

  /** A PAX extended header whose {@code path} record names the next entry. */
  private static long pax(OutputStream out, String name) throws IOException {
    String body = "path=" + name + "\n";
    int length = body.getBytes(StandardCharsets.UTF_8).length;
    int digits = String.valueOf(length).length() + 1;
    int total = length + digits;
    if (String.valueOf(total).length() + 1 != digits) {
      total++;
    }
    byte[] record = (total + " " + body).getBytes(StandardCharsets.UTF_8);
    long written = header(out, "PaxHeaders/entry", record.length, 0644, 'x');
    out.write(record);
    return written + record.length + pad(out, record.length);
  }

  private static long pad(OutputStream out, long size) throws IOException {
    int rest = (int) (size % BLOCK);
    if (rest == 0) {
      return 0;
    }
    out.write(new byte[BLOCK - rest]);
    return BLOCK - rest;
  }

  private static String octal(long value, int digits) {
    String text = Long.toOctalString(value);
    return "0".repeat(Math.max(0, digits - text.length())) + text;
  }

  private static void put(byte[] header, int offset, int length, String value) {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    System.arraycopy(bytes, 0, header, offset, Math.min(bytes.length, length));
  }
}
