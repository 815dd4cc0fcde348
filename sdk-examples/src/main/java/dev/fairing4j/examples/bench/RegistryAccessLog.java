package dev.fairing4j.examples.bench;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a benchmark scenario really uploaded, as the registry itself saw it: reads the access log
 * that {@code docker-registry} writes (the benchmark script sends its output to a file), so the
 * figures never come from the code being measured.
 *
 * <p>{@link #mark()} starts a scenario, {@link #uploadsSinceMark()} ends it. Completed blob
 * uploads are the final {@code PUT .../blobs/uploads/<id>?digest=...} answered 201; their sizes
 * are asked from the registry afterwards ({@code HEAD} of the blob), as are the sizes of pushed
 * manifests. Requests written after the scenario (those size queries) are skipped by the next
 * {@link #mark()}.
 */
final class RegistryAccessLog {
  /** gorilla's combined log format: {@code host - user [time] "METHOD URI PROTO" status size}. */
  private static final Pattern ACCESS =
      Pattern.compile("\\S+ \\S+ \\S+ \\[[^\\]]*] \"(\\S+) (\\S+) [^\"]*\" (\\d{3}) (\\d+|-)");
  private static final Pattern BLOB_GET = Pattern.compile("^/v2/.+/blobs/(sha256:[0-9a-f]{64})$");
  private static final Pattern BLOB_PUT =
      Pattern.compile("^/v2/(.+)/blobs/uploads/[^?]+\\?(?:.*&)?digest=(sha256:[0-9a-f]{64})");
  private static final Pattern MOUNT = Pattern.compile("^/v2/(.+)/blobs/uploads/\\?.*mount=");
  private static final Pattern MANIFEST_PUT = Pattern.compile("^/v2/(.+)/manifests/([^/?]+)$");
  private static final String SYNC = "/fairing4j-bench-sync/";
  private static final String MANIFEST_TYPES = String.join(",",
      "application/vnd.docker.distribution.manifest.v2+json",
      "application/vnd.oci.image.manifest.v1+json",
      "application/vnd.docker.distribution.manifest.list.v2+json",
      "application/vnd.oci.image.index.v1+json");

  private final Path logFile;
  private final String registry;
  private final HttpClient http = HttpClient.newBuilder()
      .connectTimeout(Duration.ofSeconds(5)).build();
  private long offset;
  private int syncs;

  /** Reads {@code logFile}, the output of the registry serving {@code host:port}. */
  RegistryAccessLog(Path logFile, String registry) {
    this.logFile = logFile;
    this.registry = registry;
  }

  /**
   * What one scenario uploaded: blobs (layers, configs) and manifests, counted and sized; and
   * what it downloaded and asked.
   *
   * @param uploadedDigests the digests of the blobs uploaded
   * @param downloads bytes the registry sent for each blob downloaded ({@code GET}), by digest
   * @param requests every request the registry answered in the scenario
   */
  record Uploads(int blobs, long blobBytes, int manifests, long manifestBytes, int mounts,
      Set<String> uploadedDigests, java.util.Map<String, Long> downloads, int requests) {
    /** Everything that went up: blob content plus manifests. */
    long bytes() {
      return blobBytes + manifestBytes;
    }
  }

  /** Forgets everything the registry logged so far; the next scenario starts here. */
  void mark() throws IOException, InterruptedException {
    offset = sync();
  }

  /** What was uploaded since {@link #mark()}. */
  Uploads uploadsSinceMark() throws IOException, InterruptedException {
    long end = sync();
    List<String> lines = read(offset, end);
    Set<String> blobs = new LinkedHashSet<>();   // repository + " " + digest
    Set<String> manifests = new LinkedHashSet<>();
    int mounts = 0;
    int requests = 0;
    java.util.Map<String, Long> downloads = new java.util.LinkedHashMap<>();
    for (String line : lines) {
      Matcher access = ACCESS.matcher(line);
      if (!access.find()) {
        continue;
      }
      String method = access.group(1);
      String uri = URLDecoder.decode(access.group(2), StandardCharsets.UTF_8);
      int status = Integer.parseInt(access.group(3));
      if (uri.startsWith(SYNC)) {
        continue;
      }
      requests++;
      Matcher download = BLOB_GET.matcher(uri);
      if (method.equals("GET") && status == 200 && download.find()
          && !access.group(4).equals("-")) {
        downloads.merge(download.group(1), Long.parseLong(access.group(4)), Long::sum);
      }
      Matcher blob = BLOB_PUT.matcher(uri);
      Matcher manifest = MANIFEST_PUT.matcher(uri);
      if (method.equals("PUT") && status == 201 && blob.find()) {
        blobs.add(blob.group(1) + " " + blob.group(2));
      } else if (method.equals("PUT") && status == 201 && manifest.find()) {
        manifests.add(manifest.group(1) + " " + manifest.group(2));
      } else if (method.equals("POST") && status == 201 && MOUNT.matcher(uri).find()) {
        mounts++;
      }
    }
    long blobBytes = 0;
    for (String blob : blobs) {
      String[] parts = blob.split(" ");
      blobBytes += size("/v2/" + parts[0] + "/blobs/" + parts[1], "HEAD");
    }
    long manifestBytes = 0;
    for (String manifest : manifests) {
      String[] parts = manifest.split(" ");
      manifestBytes += size("/v2/" + parts[0] + "/manifests/" + parts[1], "GET");
    }
    Set<String> digests = new LinkedHashSet<>();
    blobs.forEach(blob -> digests.add(blob.split(" ")[1]));
    return new Uploads(blobs.size(), blobBytes, manifests.size(), manifestBytes, mounts, digests,
        downloads, requests);
  }

  /** The size the registry reports for a blob or manifest. */
  private long size(String path, String method) throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://" + registry + path))
        .header("Accept", MANIFEST_TYPES).method(method, HttpRequest.BodyPublishers.noBody())
        .timeout(Duration.ofSeconds(10)).build();
    if (method.equals("HEAD")) {
      HttpResponse<Void> response = http.send(request, HttpResponse.BodyHandlers.discarding());
      return response.headers().firstValueAsLong("Content-Length").orElse(0);
    }
    return http.send(request, HttpResponse.BodyHandlers.ofByteArray()).body().length;
  }

  /**
   * Sends a marker request and waits until the registry has logged it: the log is written after
   * each response, so only then is everything before it in the file. Returns the file offset just
   * past the marker line.
   */
  private long sync() throws IOException, InterruptedException {
    String marker = SYNC + (++syncs) + "-" + System.nanoTime();
    http.send(HttpRequest.newBuilder(URI.create("http://" + registry + marker))
        .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.discarding());
    long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
    while (System.nanoTime() < deadline) {
      try (RandomAccessFile file = new RandomAccessFile(logFile.toFile(), "r")) {
        file.seek(offset);
        for (String line; (line = file.readLine()) != null; ) {
          if (line.contains(marker)) {
            return file.getFilePointer();
          }
        }
      }
      Thread.sleep(20);
    }
    throw new IOException("the registry never logged " + marker + " in " + logFile
        + "; is its output going there?");
  }

  private List<String> read(long from, long to) throws IOException {
    List<String> lines = new ArrayList<>();
    try (RandomAccessFile file = new RandomAccessFile(logFile.toFile(), "r")) {
      file.seek(from);
      for (String line; file.getFilePointer() < to && (line = file.readLine()) != null; ) {
        lines.add(line);
      }
    }
    return lines;
  }
}
