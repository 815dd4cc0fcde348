package dev.fairing4j.core.testing;

import java.util.Set;
import java.util.regex.Pattern;

/**
 * One request a {@link RegistryExtension} registry answered, as its own access log recorded it,
 * so tests can assert on what a client really sent (how many blobs it uploaded, whether it
 * retried after a 401) rather than on what the client claims it did.
 *
 * @param method the HTTP method, e.g. {@code PUT}
 * @param path the request path without the query string, e.g. {@code /v2/team/app/blobs/uploads/}
 *     (a cross-repository mount is {@code POST .../blobs/uploads/} answered 201, a new upload is
 *     the same request answered 202)
 * @param status the HTTP status the registry answered with
 */
public record RegistryRequest(String method, String path, int status) {
  private static final Set<String> UPLOAD_METHODS = Set.of("POST", "PUT", "PATCH");
  private static final Pattern UPLOADS = Pattern.compile("^/v2/.+/blobs/uploads(/.*)?$");

  /** True for the POST, PATCH and PUT requests of a blob upload (or of a mount attempt). */
  public boolean isBlobUpload() {
    return UPLOAD_METHODS.contains(method) && UPLOADS.matcher(path).matches();
  }

  @Override
  public String toString() {
    return method + " " + path + " " + status;
  }
}
