package dev.fairing4j.builder.internal.image;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Sha256;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;

/**
 * Takes the snapshot a build is made from. Every file of the context is copied once into a
 * content-addressed directory ({@code <dir>/<sha256>}, hashed while it is copied), and the build
 * goes on with a context over those copies: its digest (hence the content tag and the
 * fingerprint) and Jib's layers are computed from the same bytes, however the user's files
 * change in the meantime. An editor saving {@code train.py} while an image is built cannot make
 * the tag name one content and the image hold another.
 *
 * <p>A copy's path and modification time depend on its content only, so Jib's application-layer
 * cache (keyed by source path and modification time) recognises an unchanged file from build to
 * build. A file already staged is not copied again: it is hashed, and used when the hash is of
 * the file as it still is (same size, time and inode before and after). Copies are read-only.
 */
public final class ContentStaging {
  /** The modification time of every staged copy: content alone names a copy. */
  private static final FileTime STAGED_TIME = FileTime.from(JibBuild.FILE_TIME);
  private static final int BUFFER = 64 * 1024;

  private final Path directory;

  /** Stages into {@code directory}, created when first needed. */
  public ContentStaging(Path directory) {
    this.directory = directory;
  }

  /**
   * {@code context} with every file replaced by its staged copy; everything else (paths, layers,
   * modes, command, environment, labels) as it was.
   *
   * @throws InvalidInputException when a file of the context cannot be read any more
   * @throws FairingException when the staging directory cannot be written
   */
  public BuildContext snapshot(BuildContext context) {
    createDirectory();
    // Each file replaced in place: whatever else the context holds stays as it is.
    BuildContext staged = context;
    for (Map.Entry<String, ContextFile> entry : context.files().entrySet()) {
      ContextFile file = entry.getValue();
      staged = staged.withFile(entry.getKey(), ContextFile.of(stage(entry.getKey(), file))
          .inLayer(file.layer()).executable(file.isExecutable()));
    }
    return staged;
  }

  private Path stage(String containerPath, ContextFile file) {
    if (file.source().isEmpty()) {
      // Bytes held in memory (a converted notebook) cannot change: their hash is final.
      Path staged = directory.resolve(file.sha256());
      return Files.isRegularFile(staged) ? staged : copy(containerPath, file);
    }
    Path source = file.source().get();
    BasicFileAttributes before = attributes(containerPath, source);
    Path known = directory.resolve(hash(containerPath, file));
    if (Files.isRegularFile(known) && unchanged(before, attributes(containerPath, source))) {
      return known;
    }
    return copy(containerPath, file);
  }

  /** Copies {@code file} into the staging directory, named by the hash of the bytes copied. */
  private Path copy(String containerPath, ContextFile file) {
    Path temporary;
    try {
      temporary = Files.createTempFile(directory, ".staging-", "");
    } catch (IOException e) {
      throw cannotWrite(e);
    }
    try {
      MessageDigest sha256 = sha256();
      byte[] buffer = new byte[BUFFER];
      try (InputStream in = open(containerPath, file);
          OutputStream out = Files.newOutputStream(temporary)) {
        for (int n; (n = read(containerPath, file, in, buffer)) > 0; ) {
          sha256.update(buffer, 0, n);
          out.write(buffer, 0, n);
        }
      }
      Files.setLastModifiedTime(temporary, STAGED_TIME);
      readOnly(temporary);
      Path staged = directory.resolve(HexFormat.of().formatHex(sha256.digest()));
      if (Files.isRegularFile(staged)) {
        Files.delete(temporary);  // staged before, or by a parallel build: the same bytes
        return staged;
      }
      try {
        Files.move(temporary, staged, StandardCopyOption.ATOMIC_MOVE);
      } catch (FileAlreadyExistsException e) {
        Files.deleteIfExists(temporary);
      }
      return staged;
    } catch (IOException e) {
      deleteQuietly(temporary);
      throw cannotWrite(e);
    } catch (RuntimeException e) {
      deleteQuietly(temporary);
      throw e;
    }
  }

  private String hash(String containerPath, ContextFile file) {
    MessageDigest sha256 = sha256();
    byte[] buffer = new byte[BUFFER];
    try (InputStream in = open(containerPath, file)) {
      for (int n; (n = read(containerPath, file, in, buffer)) > 0; ) {
        sha256.update(buffer, 0, n);
      }
    } catch (IOException e) {
      throw cannotRead(containerPath, file, e);
    }
    return HexFormat.of().formatHex(sha256.digest());
  }

  private static InputStream open(String containerPath, ContextFile file) {
    try {
      return file.open();
    } catch (IOException e) {
      throw cannotRead(containerPath, file, e);
    }
  }

  private static int read(String containerPath, ContextFile file, InputStream in,
      byte[] buffer) {
    try {
      return in.read(buffer);
    } catch (IOException e) {
      throw cannotRead(containerPath, file, e);
    }
  }

  private static BasicFileAttributes attributes(String containerPath, Path source) {
    try {
      return Files.readAttributes(source, BasicFileAttributes.class);
    } catch (IOException e) {
      throw cannotRead(containerPath, ContextFile.of(source), e);
    }
  }

  private static boolean unchanged(BasicFileAttributes before, BasicFileAttributes after) {
    return before.size() == after.size()
        && before.lastModifiedTime().equals(after.lastModifiedTime())
        && Objects.equals(before.fileKey(), after.fileKey());
  }

  private void createDirectory() {
    try {
      Files.createDirectories(directory);
    } catch (IOException e) {
      throw cannotWrite(e);
    }
  }

  private static InvalidInputException cannotRead(String containerPath, ContextFile file,
      IOException e) {
    String reason = e instanceof NoSuchFileException ? "it does not exist any more"
        : e instanceof AccessDeniedException ? "permission denied"
        : e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    return InvalidInputException.of("context", "'" + file.source().map(Path::toString)
            .orElse(containerPath) + "' (for " + containerPath + ") cannot be read: " + reason,
        "it was moved, deleted or made unreadable after the context was prepared: restore it,"
            + " or prepare the context again", e);
  }

  private FairingException cannotWrite(IOException e) {
    return FairingException.of("stage build context", directory.toString(), e.getMessage() == null
            ? e.getClass().getSimpleName() : e.getMessage(),
        "make that directory writable, or set another cache with baseLayerCache(..)", e);
  }

  /** A staged copy is named by its content: editing it in place would make the name lie. */
  private static void readOnly(Path file) throws IOException {
    try {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--r--r--"));
    } catch (UnsupportedOperationException notPosix) {
      file.toFile().setReadOnly();
    }
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException ignored) {
      // a stray temporary file in the cache costs nothing but its size
    }
  }

  private static MessageDigest sha256() {
    return Sha256.newDigest();
  }
}
