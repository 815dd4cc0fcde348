package dev.fairing4j.examples;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.fairing4j.core.testing.Tools;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveOutputStream;
import org.apache.commons.compress.archivers.tar.TarConstants;
import org.opentest4j.AssertionFailedError;

/**
 * The base image of the cluster suite's job images: the host's {@code /usr/bin/python3} with
 * Debian's torch and XGBoost ({@code python3-torch}, {@code python3-torchvision},
 * {@code python3-xgboost} and the Python packages they depend on), made without a Docker engine and without internet, for pods on the kit's node.
 *
 * <p>Jib drops symlinks, so it cannot make this base; buildah can, but copies the tree three
 * times through its storage. Instead the two layers are written here as tar streams of the host's
 * files, gzip level 1, in parallel: "system libraries" (the interpreter and the {@code ldd}
 * closure of every shared object in the Python tree, dereferenced, at their merged-{@code /usr}
 * paths) and "python" (the standard library minus tests and GUI modules, the packages with their
 * {@code __pycache__}, symlinks kept, plus {@code /usr/bin/python3}, {@code /tmp},
 * {@code /etc/passwd}). They become an OCI layout under
 * {@code ~/.cache/fairing4j/test-bases/torch-<key>}, where the key is a digest over every entry's
 * path, type, mode, size, mtime and link target: the base is made once per machine and again
 * only when what it contains changes (a Debian update). {@code skopeo} pushes it; blobs the
 * registry has are skipped, so a warm push costs a second.
 */
final class TorchBaseImage {
  /** The repository in the target registry. */
  static final String REPOSITORY = "fairing4j-it/torch-base";
  /** Changes whenever the way the image is laid out changes, so old caches are not reused. */
  private static final String FORMAT = "torch-base v2";
  private static final Path PYTHON = Path.of("/usr/bin/python3");
  private static final Path DIST_PACKAGES = Path.of("/usr/lib/python3/dist-packages");
  // XGBoost for ClusterXGBoostJobIT: with scipy, which it needs, about 70 MB more, pushed once.
  private static final List<String> ROOT_PACKAGES = List.of("python3-torch",
      "python3-torchvision", "python3-xgboost");
  /** Standard-library directories no training script imports. */
  private static final Set<String> STDLIB_UNUSED = Set.of("test", "idlelib", "tkinter",
      "turtledemo", "ensurepip", "pydoc_data", "site-packages", "dist-packages");
  private static final Pattern SHARED_OBJECT = Pattern.compile(".*\\.so(\\.[0-9.]+)?$");
  private static final Pattern LDD_PATH = Pattern.compile("(?:=>\\s*)?(/\\S+)\\s+\\(0x");
  private static final String PATH_ENV =
      "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
  // Sorted keys: Map.of iterates in a different order in each JVM, and the digests must not.
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);

  /**
   * The pushed base.
   *
   * @param reference {@code registry/repository@sha256:...}
   * @param layout the cached OCI layout
   * @param cached whether the layout was there already (nothing was made)
   * @param made how long finding the files and, when not cached, writing the layers took
   * @param pushed how long the push took
   * @param compressedBytes the layers' size as pushed
   */
  record Pushed(String reference, Path layout, boolean cached, Duration made, Duration pushed,
      long compressedBytes) {}

  private TorchBaseImage() {}

  /** Makes the base unless cached, pushes it to {@code registry} (host:port, plain HTTP). */
  static synchronized Pushed pushTo(String registry) throws IOException {
    long start = System.nanoTime();
    Contents contents = Contents.ofHost();
    String key = contents.key();
    Path cache = cacheRoot();
    Path layout = cache.resolve("torch-" + key.substring(0, 16));
    boolean cached = Files.isRegularFile(layout.resolve("index.json"));
    if (!cached) {
      Files.createDirectories(cache);
      Path work = Files.createTempDirectory(cache, "making-");
      try {
        writeLayout(contents, key, work);
        Files.move(work, layout, StandardCopyOption.ATOMIC_MOVE);
      } finally {
        deleteTree(work);
      }
      removeOthers(cache, layout);
    }
    Duration made = Duration.ofNanos(System.nanoTime() - start);
    long pushStart = System.nanoTime();
    Path digestFile = Files.createTempFile("fairing4j-torch-base", ".digest");
    try {
      String target = registry + "/" + REPOSITORY;
      PythonBaseImage.run(List.of(Tools.require("skopeo", "skopeo").toString(), "copy",
          "--quiet", "--dest-tls-verify=false", "--digestfile", digestFile.toString(),
          "oci:" + layout + ":latest", "docker://" + target + ":" + key.substring(0, 16)));
      long bytes = 0;
      try (Stream<Path> blobs = Files.list(layout.resolve("blobs/sha256"))) {
        for (Path blob : blobs.toList()) {
          bytes += Files.size(blob);
        }
      }
      return new Pushed(target + "@" + Files.readString(digestFile).trim(), layout, cached, made,
          Duration.ofNanos(System.nanoTime() - pushStart), bytes);
    } finally {
      Files.deleteIfExists(digestFile);
    }
  }

  /** One tar entry of a layer: where it goes and where its content comes from. */
  private record Entry(String path, char type, int mode, long size, long mtime, String link,
      Path source) {
    String describe() {
      return path + " " + type + " " + Integer.toOctalString(mode) + " " + size + " " + mtime
          + " " + link;
    }
  }

  /** Both layers' entries, sorted by path, parents before children. */
  private record Contents(TreeMap<String, Entry> libraries, TreeMap<String, Entry> python,
      String packages) {
    static Contents ofHost() throws IOException {
      requireDebianTorch();
      boolean mergedUsr = Files.isSymbolicLink(Path.of("/lib"))
          && Files.readSymbolicLink(Path.of("/lib")).toString().equals("usr/lib");
      TreeMap<String, Entry> python = new TreeMap<>();
      Path exe = PYTHON.toRealPath();
      Path stdlib = Path.of("/usr/lib", exe.getFileName().toString());
      List<Path> roots = new ArrayList<>();
      try (Stream<Path> children = Files.list(stdlib)) {
        children.filter(p -> !STDLIB_UNUSED.contains(p.getFileName().toString())
            && !p.getFileName().toString().startsWith("config-")).forEach(roots::add);
      }
      Map<String, String> versions = new TreeMap<>();
      for (String top : packageEntries(versions)) {
        roots.add(DIST_PACKAGES.resolve(top));
      }
      List<Path> elfRoots = new ArrayList<>(List.of(exe));
      List<Path> outside = new ArrayList<>();
      for (Path root : roots) {
        walk(root, python, elfRoots, outside);
      }
      // What a container image needs beyond the Python tree.
      String name = exe.getFileName().toString();
      put(python, symlink("/usr/bin/python3", name));
      put(python, symlink("/usr/bin/python", name));
      put(python, new Entry("/tmp", 'd', 01777, 0, 0, "", null));
      put(python, generated("/etc/passwd", "root:x:0:0:root:/root:/bin/sh\n"
          + "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"));
      put(python, generated("/etc/group", "root:x:0:\nnogroup:x:65534:\n"));
      // torchrun, as real torch images have it (TrainJobs on torch runtimes start with it), in
      // the local cluster's form: Debian's own cannot start on Python 3.11 (see Torchrun).
      put(python, new Entry("/usr/local/bin/torchrun", 'g', 0755, torchrun().length(), 0,
          torchrun(), null));
      if (mergedUsr) {
        put(python, symlink("/lib", "usr/lib"));
        put(python, symlink("/lib64", "usr/lib64"));
        put(python, symlink("/bin", "usr/bin"));
      }
      for (String path : List.copyOf(python.keySet())) {
        addParents(python, path);
      }

      TreeMap<String, Entry> libraries = new TreeMap<>();
      for (Path file : outside) {
        put(libraries, dereferenced(usr(file.toString(), mergedUsr), file));
      }
      for (String library : lddClosure(elfRoots, outside)) {
        put(libraries, dereferenced(usr(library, mergedUsr), Path.of(library)));
      }
      put(libraries, dereferenced(exe.toString(), exe));
      for (String path : List.copyOf(libraries.keySet())) {
        addParents(libraries, path);
      }
      return new Contents(libraries, python, versions.toString());
    }

    /** A digest of everything that goes into the image. */
    String key() {
      try {
        MessageDigest digest = MessageDigest.getInstance("SHA-256");
        digest.update((FORMAT + "\n").getBytes(StandardCharsets.UTF_8));
        for (Map<String, Entry> layer : List.of(libraries, python)) {
          digest.update("layer\n".getBytes(StandardCharsets.UTF_8));
          for (Entry entry : layer.values()) {
            digest.update((entry.describe() + "\n").getBytes(StandardCharsets.UTF_8));
          }
        }
        return HexFormat.of().formatHex(digest.digest());
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  private static void requireDebianTorch() {
    Tools.require("dpkg-query", "dpkg");
    Tools.require("ldd", "libc-bin");
    if (!Files.isExecutable(PYTHON)) {
      throw new AssertionFailedError("no /usr/bin/python3; install it: apt-get install python3");
    }
    for (String pkg : ROOT_PACKAGES) {
      if (version(pkg).isEmpty()) {
        throw new AssertionFailedError(pkg + " is not installed; the cluster suite's base image"
            + " is made from it: apt-get install " + String.join(" ", ROOT_PACKAGES));
      }
    }
  }

  /**
   * The top-level entries of {@code dist-packages} owned by the root packages and the Python
   * packages they depend on (recursively), plus the {@code __pycache__} files of single-file
   * modules; records each package's version in {@code versions}.
   */
  private static Set<String> packageEntries(Map<String, String> versions) throws IOException {
    Deque<String> todo = new ArrayDeque<>(ROOT_PACKAGES);
    Set<String> tops = new TreeSet<>();
    while (!todo.isEmpty()) {
      String pkg = todo.pop();
      if (versions.containsKey(pkg)) {
        continue;
      }
      Optional<String> version = version(pkg);
      if (version.isEmpty()) {
        continue; // a virtual package such as python3-numpy-abi9
      }
      versions.put(pkg, version.get());
      String depends = PythonBaseImage.run(List.of(dpkgQuery(), "-W", "-f=${Depends}", pkg));
      for (String alternatives : depends.split(",")) {
        String first = alternatives.split("\\|")[0].trim().split("[\\s:]")[0];
        if (first.startsWith("python3-")) {
          todo.push(first);
        }
      }
      String prefix = DIST_PACKAGES + "/";
      for (String file : PythonBaseImage.run(List.of(dpkgQuery(), "-L", pkg)).split("\n")) {
        if (file.startsWith(prefix) && file.length() > prefix.length()) {
          tops.add(file.substring(prefix.length()).split("/")[0]);
        }
      }
    }
    // Debian compiles single-file modules into the shared __pycache__ at install time.
    try (Stream<Path> cached = Files.list(DIST_PACKAGES.resolve("__pycache__"))) {
      for (Path pyc : cached.toList()) {
        String module = pyc.getFileName().toString().split("\\.")[0] + ".py";
        if (tops.contains(module)) {
          tops.add("__pycache__/" + pyc.getFileName());
        }
      }
    } catch (java.nio.file.NoSuchFileException none) {
      // no single-file modules compiled
    }
    return tops;
  }

  private static String dpkgQuery() {
    return Tools.require("dpkg-query", "dpkg").toString();
  }

  private static Optional<String> version(String pkg) {
    try {
      String status = PythonBaseImage.run(List.of(dpkgQuery(), "-W",
          "-f=${db:Status-Abbrev}${Version}", pkg));
      return status.startsWith("ii ") ? Optional.of(status.substring(3).trim())
          : Optional.empty();
    } catch (IOException | AssertionFailedError notInstalled) {
      return Optional.empty();
    }
  }

  /**
   * Adds {@code root} and what is under it to {@code entries} as it is (symlinks kept); shared
   * objects go to {@code elfRoots}; a symlink to a file outside the Python tree (torch's
   * {@code lib/libtorch.so -> ../../../../x86_64-linux-gnu/...}) has its target added to
   * {@code outside}, so the link resolves in the image.
   */
  private static void walk(Path root, Map<String, Entry> entries, List<Path> elfRoots,
      List<Path> outside) throws IOException {
    try (Stream<Path> tree = Files.walk(root)) {
      for (Path path : tree.toList()) {
        if (Files.isSymbolicLink(path)) {
          Path link = Files.readSymbolicLink(path);
          put(entries, symlink(path.toString(), link.toString()));
          Path target = path.getParent().resolve(link).normalize();
          if (!target.startsWith("/usr/lib/python3") && Files.isRegularFile(target)) {
            outside.add(target);
          }
        } else if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
          put(entries, new Entry(path.toString(), 'd', mode(path), 0, mtime(path), "", null));
        } else if (Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS)) {
          put(entries, new Entry(path.toString(), 'f', mode(path), Files.size(path),
              mtime(path), "", path));
          if (SHARED_OBJECT.matcher(path.getFileName().toString()).matches()) {
            elfRoots.add(path);
          }
        }
      }
    }
  }

  /** Every library the dynamic linker loads for {@code elfRoots} and {@code outside}. */
  private static Set<String> lddClosure(List<Path> elfRoots, List<Path> outside)
      throws IOException {
    List<String> files = new ArrayList<>();
    elfRoots.forEach(p -> files.add(p.toString()));
    outside.stream().filter(p -> SHARED_OBJECT.matcher(p.getFileName().toString()).matches())
        .forEach(p -> files.add(p.toString()));
    Set<String> libraries = new TreeSet<>();
    String ldd = Tools.require("ldd", "libc-bin").toString();
    // ldd prints the whole closure of each file; a few hundred files per call keep it quick.
    for (int i = 0; i < files.size(); i += 200) {
      List<String> command = new ArrayList<>(List.of(ldd));
      command.addAll(files.subList(i, Math.min(files.size(), i + 200)));
      Matcher matcher = LDD_PATH.matcher(PythonBaseImage.run(command, false));
      while (matcher.find()) {
        libraries.add(matcher.group(1));
      }
    }
    return libraries;
  }

  /** The path a library has under merged {@code /usr}, where {@code /lib} links to it. */
  private static String usr(String path, boolean mergedUsr) {
    if (mergedUsr && (path.startsWith("/lib/") || path.startsWith("/lib64/"))) {
      return "/usr" + path;
    }
    return path;
  }

  private static Entry dereferenced(String path, Path file) throws IOException {
    Path real = file.toRealPath();
    return new Entry(path, 'f', mode(real), Files.size(real), mtime(real), "", real);
  }

  private static Entry symlink(String path, String target) {
    return new Entry(path, 'l', 0777, 0, 0, target, null);
  }

  private static String torchrun() {
    return "#!/usr/bin/python3\n" + dev.fairing4j.deployer.local.internal.python.Torchrun.PROGRAM;
  }

  private static Entry generated(String path, String content) {
    return new Entry(path, 'g', 0644, content.getBytes(StandardCharsets.UTF_8).length, 0,
        content, null);
  }

  private static void put(Map<String, Entry> entries, Entry entry) {
    entries.putIfAbsent(entry.path(), entry);
  }

  /** Directory entries for every ancestor of {@code path} that has none. */
  private static void addParents(Map<String, Entry> entries, String path) {
    for (Path parent = Path.of(path).getParent(); parent != null && parent.getNameCount() > 0;
        parent = parent.getParent()) {
      entries.putIfAbsent(parent.toString(), new Entry(parent.toString(), 'd', 0755, 0, 0, "",
          null));
    }
  }

  private static int mode(Path path) throws IOException {
    return ((Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS)) & 07777;
  }

  private static long mtime(Path path) throws IOException {
    return Files.getLastModifiedTime(path, LinkOption.NOFOLLOW_LINKS).to(TimeUnit.SECONDS);
  }

  // ---- the OCI layout ------------------------------------------------------------------------

  /** A written layer blob: its digest, size and the digest of its uncompressed tar. */
  private record Layer(String digest, long size, String diffId) {}

  private static void writeLayout(Contents contents, String key, Path dir) throws IOException {
    Path blobs = Files.createDirectories(dir.resolve("blobs/sha256"));
    // The two layers compress in parallel: gzip is the slow part, and there are two cores.
    CompletableFuture<Layer> libraries = CompletableFuture.supplyAsync(
        () -> writeLayer(contents.libraries().values(), blobs));
    Layer python = writeLayer(contents.python().values(), blobs);
    Layer system;
    try {
      system = libraries.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof UncheckedIOException io ? io.getCause()
          : new IOException(e.getCause());
    }
    Map<String, Object> config = new LinkedHashMap<>();
    config.put("created", "1970-01-01T00:00:00Z");
    config.put("architecture", "amd64");
    config.put("os", "linux");
    config.put("config", Map.of("Env", List.of(PATH_ENV), "Labels", Map.of(
        "dev.fairing4j.test-base.key", key,
        "dev.fairing4j.test-base.packages", contents.packages())));
    config.put("rootfs", Map.of("type", "layers", "diff_ids", List.of(system.diffId(),
        python.diffId())));
    config.put("history", List.of(
        Map.of("created", "1970-01-01T00:00:00Z", "created_by",
            "fairing4j TorchBaseImage: system libraries (ldd closure)"),
        Map.of("created", "1970-01-01T00:00:00Z", "created_by",
            "fairing4j TorchBaseImage: python, stdlib, " + String.join(" ", ROOT_PACKAGES)
                + " and their Python dependencies")));
    Map<String, Object> configRef = writeJson(blobs, config,
        "application/vnd.oci.image.config.v1+json");
    Map<String, Object> manifest = new LinkedHashMap<>();
    manifest.put("schemaVersion", 2);
    manifest.put("mediaType", "application/vnd.oci.image.manifest.v1+json");
    manifest.put("config", configRef);
    manifest.put("layers", List.of(layerRef(system), layerRef(python)));
    Map<String, Object> manifestRef = writeJson(blobs, manifest,
        "application/vnd.oci.image.manifest.v1+json");
    Map<String, Object> indexEntry = new LinkedHashMap<>(manifestRef);
    indexEntry.put("annotations", Map.of("org.opencontainers.image.ref.name", "latest"));
    Files.writeString(dir.resolve("oci-layout"), "{\"imageLayoutVersion\":\"1.0.0\"}");
    Files.write(dir.resolve("index.json"), JSON.writeValueAsBytes(Map.of("schemaVersion", 2,
        "manifests", List.of(indexEntry))));
  }

  private static Map<String, Object> layerRef(Layer layer) {
    Map<String, Object> ref = new LinkedHashMap<>();
    ref.put("mediaType", "application/vnd.oci.image.layer.v1.tar+gzip");
    ref.put("digest", layer.digest());
    ref.put("size", layer.size());
    return ref;
  }

  private static Map<String, Object> writeJson(Path blobs, Object value, String mediaType)
      throws IOException {
    byte[] bytes = JSON.writeValueAsBytes(value);
    String digest = "sha256:" + HexFormat.of().formatHex(sha256().digest(bytes));
    Files.write(blobs.resolve(digest.substring(7)), bytes);
    Map<String, Object> ref = new LinkedHashMap<>();
    ref.put("mediaType", mediaType);
    ref.put("digest", digest);
    ref.put("size", bytes.length);
    return ref;
  }

  /** Writes one gzip layer into {@code blobs}, named by its digest. */
  private static Layer writeLayer(Iterable<Entry> entries, Path blobs) {
    try {
      Path temporary = Files.createTempFile(blobs, "layer", ".tmp");
      MessageDigest compressed = sha256();
      MessageDigest uncompressed = sha256();
      try (OutputStream file = new BufferedOutputStream(Files.newOutputStream(temporary), 1 << 20);
          DigestOutputStream blob = new DigestOutputStream(file, compressed);
          GZIPOutputStream gzip = new FastGzip(blob);
          DigestOutputStream tarBytes = new DigestOutputStream(gzip, uncompressed);
          TarArchiveOutputStream tar = new TarArchiveOutputStream(tarBytes, 1 << 16)) {
        tar.setLongFileMode(TarArchiveOutputStream.LONGFILE_POSIX);
        tar.setBigNumberMode(TarArchiveOutputStream.BIGNUMBER_POSIX);
        for (Entry entry : entries) {
          writeEntry(tar, entry);
        }
        tar.finish();
      }
      String digest = "sha256:" + HexFormat.of().formatHex(compressed.digest());
      Files.move(temporary, blobs.resolve(digest.substring(7)),
          StandardCopyOption.REPLACE_EXISTING);
      return new Layer(digest, Files.size(blobs.resolve(digest.substring(7))),
          "sha256:" + HexFormat.of().formatHex(uncompressed.digest()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void writeEntry(TarArchiveOutputStream tar, Entry entry) throws IOException {
    String name = entry.path().substring(1);
    TarArchiveEntry header;
    switch (entry.type()) {
      case 'd' -> {
        header = new TarArchiveEntry(name + "/");
        header.setMode(040000 | entry.mode());
      }
      case 'l' -> {
        header = new TarArchiveEntry(name, TarConstants.LF_SYMLINK);
        header.setLinkName(entry.link());
        header.setMode(0120000 | entry.mode());
      }
      default -> {
        header = new TarArchiveEntry(name);
        header.setMode(0100000 | entry.mode());
        header.setSize(entry.size());
      }
    }
    header.setModTime(entry.mtime() * 1000);
    header.setIds(0, 0);
    header.setNames("", "");
    tar.putArchiveEntry(header);
    if (entry.type() == 'g') {
      tar.write(entry.link().getBytes(StandardCharsets.UTF_8));
    } else if (entry.type() == 'f') {
      try (InputStream in = Files.newInputStream(entry.source())) {
        long copied = in.transferTo(tar);
        if (copied != entry.size()) {
          throw new IOException(entry.source() + " changed while the base image was made");
        }
      }
    }
    tar.closeArchiveEntry();
  }

  /** gzip at level 1: the layers are made once per machine, but on two cores. */
  private static final class FastGzip extends GZIPOutputStream {
    FastGzip(OutputStream out) throws IOException {
      super(out, 1 << 16);
      def.setLevel(Deflater.BEST_SPEED);
    }
  }

  // ---- helpers -------------------------------------------------------------------------------

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Path cacheRoot() {
    String xdg = System.getenv("XDG_CACHE_HOME");
    Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg)
        : Path.of(System.getProperty("user.home"), ".cache");
    return base.resolve("fairing4j").resolve("test-bases");
  }

  /** Earlier versions of this base: a Debian update would otherwise pile them up. */
  private static void removeOthers(Path cache, Path keep) throws IOException {
    try (Stream<Path> dirs = Files.list(cache)) {
      for (Path dir : dirs.filter(d -> d.getFileName().toString().startsWith("torch-")
          && !d.equals(keep)).toList()) {
        deleteTree(dir);
      }
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
