package dev.fairing4j.builder.internal.image;

import dev.fairing4j.builder.ImageBuildException;
import dev.fairing4j.builder.internal.Json;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.internal.Sha256;
import java.io.IOException;
import java.net.ConnectException;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Just enough of the registry API (distribution spec) to decide whether a build is needed: read a
 * manifest and a small blob, with basic or bearer-token authentication. Jib does the real work;
 * this client exists because Jib always builds before it looks, and a look costs milliseconds.
 *
 * <p>It tries HTTPS first and falls back to plain HTTP only where {@code allowHttp} says so (a
 * loopback registry, or the user's explicit opt-in); the scheme that worked is remembered for the
 * life of the JVM per registry AND per {@code allowHttp}, so plain HTTP learnt under one build's
 * opt-in is never used by a later build without it (which would send its credentials in clear
 * text). A loopback registry where plain HTTP is allowed is asked over HTTP first: that is what
 * such a registry usually speaks, and the first request carries no credentials.
 *
 * <p>Requests go through {@link HttpURLConnection}: the JDK keeps its connections alive between
 * requests and builds (one handshake per connection, not per request), and it leaves no thread
 * blocked in native code. The JDK's {@code java.net.http} client does (its selector thread sits
 * in {@code epoll_wait}), and a JVM with such a thread waits 300 ms before it can exit, which a
 * build in a fresh JVM would pay every time.
 */
public final class RegistryClient {
  private static final Logger LOG = LoggerFactory.getLogger(RegistryClient.class);
  private static final Pattern AUTH_PARAM = Pattern.compile("(\\w+)=\"([^\"]*)\"");
  private static final String MANIFEST_TYPES = String.join(", ",
      "application/vnd.oci.image.manifest.v1+json",
      "application/vnd.docker.distribution.manifest.v2+json",
      "application/vnd.oci.image.index.v1+json",
      "application/vnd.docker.distribution.manifest.list.v2+json");

  private final String registry;
  private final Optional<RegistryCredential> credential;
  private final boolean allowHttp;
  private final Supplier<SSLContext> sslContext;
  // The runtime's memory of schemes and tokens (see BuildParts), for every request of this client.
  private final BuildParts parts = BuildParts.current();

  /**
   * A client for {@code registry} ({@code host[:port]}, {@code docker.io} for Docker Hub).
   *
   * @param sslContext the trust to use for HTTPS, asked only when HTTPS is used (making the
   *     JVM's default context reads its trust store: hundreds of milliseconds in a new JVM)
   */
  public RegistryClient(String registry, Optional<RegistryCredential> credential,
      boolean allowHttp, Supplier<SSLContext> sslContext) {
    this.registry = registry;
    this.credential = credential;
    this.allowHttp = allowHttp;
    this.sslContext = sslContext;
  }

  /**
   * What a remembered scheme is valid for: the registry, and whether plain HTTP was allowed when
   * it was learnt ({@code allowHttp} folds in everything that decides it: the user's opt-in and
   * whether target and base are loopback).
   */
  record SchemeKey(String registry, boolean allowHttp) {}

  /** A manifest or index as the registry serves it. */
  public record Manifest(String digest, String mediaType, byte[] body) {}

  /**
   * The manifest {@code reference} (a tag or digest) of {@code repository}; empty when the
   * registry answers 404.
   *
   * @throws ImageBuildException when the registry is unreachable or refuses the credentials
   * @throws IOException for any other unexpected answer
   */
  public Optional<Manifest> manifest(String repository, String reference) throws IOException {
    Reply response = get(repository, "/v2/" + repository + "/manifests/"
        + reference, MANIFEST_TYPES);
    if (response.statusCode() == 404) {
      return Optional.empty();
    }
    expectOk(response, "manifest " + repository + ":" + reference);
    String digest = response.header("Docker-Content-Digest")
        .orElseGet(() -> sha256(response.body()));
    String type = response.header("Content-Type").orElse("")
        .split(";")[0].trim();
    return Optional.of(new Manifest(digest, type, response.body()));
  }

  /** The blob {@code digest} of {@code repository} (for small blobs such as an image config). */
  public byte[] blob(String repository, String digest) throws IOException {
    Reply response = get(repository, "/v2/" + repository + "/blobs/" + digest,
        "*/*");
    expectOk(response, "blob " + digest);
    return response.body();
  }

  /** Whether {@code repository} holds the blob {@code digest} (a HEAD request). */
  public boolean hasBlob(String repository, String digest) throws IOException {
    Reply response = exchange(new Call("HEAD", "/v2/" + repository + "/blobs/"
        + digest, pullScope(repository), "*/*", null, null));
    if (response.statusCode() == 404) {
      return false;
    }
    expectOk(response, "blob " + digest);
    return true;
  }

  /**
   * Mounts the blob {@code digest} of repository {@code from} (same registry) into
   * {@code repository}: nothing is uploaded or downloaded. False when the registry would not
   * mount it (it then opens an upload instead, which is cancelled here).
   */
  public boolean mountBlob(String repository, String digest, String from) throws IOException {
    Reply response = exchange(new Call("POST", "/v2/" + repository
        + "/blobs/uploads/?mount=" + encode(digest) + "&from=" + encode(from),
        pushScope(repository), "*/*", "application/octet-stream", new byte[0]));
    if (response.statusCode() == 201) {
      return true;
    }
    if (response.statusCode() == 202) {
      response.header("Location")
          .ifPresent(location -> cancelUpload(repository, location));
      return false;
    }
    expectOk(response, "mount of " + digest + " from " + from);
    return false;
  }

  /**
   * Uploads a blob in two requests, as the distribution spec's monolithic upload: a POST that
   * opens the upload ({@link #openUpload}), then one PUT with the whole content and its digest
   * ({@link #completeUpload}).
   */
  public void pushBlob(String repository, String digest, byte[] content) throws IOException {
    completeUpload(repository, openUpload(repository), digest, content);
  }

  /** Opens an upload into {@code repository}; returns where its content goes. */
  public String openUpload(String repository) throws IOException {
    Reply opened = exchange(new Call("POST", "/v2/" + repository
        + "/blobs/uploads/", pushScope(repository), "*/*", "application/octet-stream",
        new byte[0]));
    if (opened.statusCode() != 202) {
      expectOk(opened, "an upload into " + repository);
      throw new IOException(registry + " answered " + opened.statusCode() + " to opening an"
          + " upload into " + repository);
    }
    return opened.header("Location").orElseThrow(() ->
        new IOException(registry + " opened an upload without a Location"));
  }

  /** Sends the whole content of the upload opened at {@code location} and closes it. */
  public void completeUpload(String repository, String location, String digest, byte[] content)
      throws IOException {
    Reply put = exchange(new Call("PUT", location + (location.contains("?")
        ? "&" : "?") + "digest=" + encode(digest), pushScope(repository), "*/*",
        "application/octet-stream", content));
    if (put.statusCode() != 201) {
      expectOk(put, "upload of " + digest);
      throw new IOException(registry + " answered " + put.statusCode() + " to the upload of "
          + digest);
    }
  }

  /** Cancels the upload opened at {@code location}; a failure only means the registry purges it. */
  public void cancelUpload(String repository, String location) {
    try {
      exchange(new Call("DELETE", location, pushScope(repository), "*/*", null, null));
    } catch (IOException | RuntimeException e) {
      LOG.debug("cannot cancel the upload {} ({}); the registry purges it", location,
          e.toString());
    }
  }

  /**
   * Puts a manifest under {@code reference} (a tag) and returns the digest the registry gives
   * it.
   */
  public String putManifest(String repository, String reference, String mediaType,
      byte[] manifest) throws IOException {
    Reply response = exchange(new Call("PUT", "/v2/" + repository
        + "/manifests/" + reference, pushScope(repository), "*/*", mediaType, manifest));
    expectOk(response, "manifest " + repository + ":" + reference);
    return response.header("Docker-Content-Digest")
        .orElseGet(() -> sha256(manifest));
  }

  /** Whose authorization for {@code scope} this is: never shared across users or passwords. */
  private String authorizationKey(String scope) {
    return registry + "\n" + credential.map(c -> c.username() + "\n"
        + sha256(c.password().reveal().getBytes(StandardCharsets.UTF_8))).orElse("-")
        + "\n" + scope;
  }

  /** One request: method, path (or an absolute URL the registry gave), scope, body. */
  private record Call(String method, String path, String scope, String accept,
      String contentType, byte[] body) {}

  private static String pullScope(String repository) {
    return "repository:" + repository + ":pull";
  }

  private static String pushScope(String repository) {
    return "repository:" + repository + ":pull,push";
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  /**
   * {@link #exchange} with bounded backoff ({@link RegistryRetry}) on a 5xx answer or a dropped
   * connection; the last answer or failure stands when the tries run out. A refused connection
   * (ImageBuildException "unreachable"), TLS and credential failures are final at once: the
   * pipeline reports them before the push, which retries on its own.
   */
  private Reply get(String repository, String path, String accept)
      throws IOException {
    Call call = new Call("GET", path, pullScope(repository), accept, null, null);
    for (int attempt = 1; ; attempt++) {
      boolean last = attempt >= RegistryRetry.ATTEMPTS;
      try {
        Reply response = exchange(call);
        if (last || !RegistryRetry.retryableStatus(response.statusCode())) {
          return response;
        }
        LOG.debug("{} answered {} for {}; retry {} of {}", registry, response.statusCode(),
            path, attempt, RegistryRetry.ATTEMPTS - 1);
      } catch (SSLException e) {
        throw e;
      } catch (IOException e) {
        if (last || !RegistryRetry.transientFailure(e)) {
          throw e;
        }
        LOG.debug("{} failed for {} ({}); retry {} of {}", registry, path, e.toString(), attempt,
            RegistryRetry.ATTEMPTS - 1);
      }
      if (!RegistryRetry.pause(attempt)) {
        throw new IOException("interrupted while retrying " + registry);
      }
    }
  }

  /**
   * One request, on the scheme remembered for this registry or, the first time, HTTPS and then
   * (where allowed) plain HTTP.
   */
  private Reply exchange(Call request) throws IOException {
    SchemeKey key = new SchemeKey(registry, allowHttp);
    String cached = parts.schemes.get(key).orElse(null);
    if (cached != null) {
      try {
        return send(cached, request);
      } catch (SSLException | ConnectException | PlainHttpRefused e) {
        // The registry on this port changed since (tests reuse ports): find out again.
        parts.schemes.remove(key, cached);
      }
    }
    List<String> schemes = !allowHttp ? List.of("https")
        : loopback() ? List.of("http", "https") : List.of("https", "http");
    for (int i = 0; ; i++) {
      try {
        Reply response = send(schemes.get(i), request);
        parts.schemes.put(key, schemes.get(i));
        return response;
      } catch (SSLException | ConnectException | SocketTimeoutException
          | UnknownHostException | PlainHttpRefused e) {
        if (e instanceof SocketTimeoutException && !String.valueOf(e.getMessage())
            .contains("connect")) {
          throw e;  // a read timeout: transient, not a wrong address
        }
        if (i + 1 < schemes.size() && (e instanceof SSLException
            || e instanceof PlainHttpRefused)) {
          // A plain-HTTP registry answers a TLS hello with garbage, a TLS registry refuses plain
          // HTTP; the other scheme is tried only where plain HTTP is allowed.
          LOG.debug("{} to {} failed ({}); trying {}", schemes.get(i), registry, e.toString(),
              schemes.get(i + 1));
          continue;
        }
        if (e instanceof PlainHttpRefused refused) {
          throw new IOException(refused.getMessage());
        }
        if (e instanceof SSLException) {
          throw e;
        }
        throw unreachable(e);
      }
    }
  }

  private Reply send(String scheme, Call request) throws IOException {
    URI uri;
    try {
      // an upload's location may be absolute (it names its own scheme and host) or a path
      uri = request.path().startsWith("/") ? URI.create(scheme + "://" + apiHost()
          + request.path()) : URI.create(request.path());
    } catch (IllegalArgumentException e) {
      throw new IOException(registry + " sent us to a URL that cannot be used: "
          + request.path(), e);
    }
    String scope = request.scope();
    String cacheKey = authorizationKey(scope);
    Reply response = call(uri, request, parts.authorizations.get(cacheKey).orElse(null));
    if (response.statusCode() == 401) {
      Optional<String> authorization = authorize(response, scope);
      if (authorization.isPresent()) {
        parts.authorizations.put(cacheKey, authorization.get());
        response = call(uri, request, authorization.get());
      }
      if (response.statusCode() == 401 || response.statusCode() == 403) {
        throw unauthorized(response.statusCode());
      }
    }
    return response;
  }

  private Reply call(URI uri, String accept, String authorization)
      throws IOException {
    return call(uri, new Call("GET", uri.toString(), "", accept, null, null), authorization);
  }

  private Reply call(URI uri, Call call, String authorization) throws IOException {
    HttpURLConnection connection;
    try {
      connection = (HttpURLConnection) uri.toURL().openConnection(java.net.Proxy.NO_PROXY);
    } catch (IllegalArgumentException | java.net.MalformedURLException e) {
      throw new IOException(registry + " sent us to a URL that cannot be used: " + uri, e);
    }
    if (connection instanceof javax.net.ssl.HttpsURLConnection https) {
      https.setSSLSocketFactory(sslContext.get().getSocketFactory());
    }
    connection.setConnectTimeout(10_000);
    connection.setReadTimeout(30_000);
    connection.setInstanceFollowRedirects(true);
    connection.setUseCaches(false);
    connection.setRequestMethod(call.method());
    connection.setRequestProperty("Accept", call.accept());
    if (call.contentType() != null) {
      connection.setRequestProperty("Content-Type", call.contentType());
    }
    if (authorization != null) {
      connection.setRequestProperty("Authorization", authorization);
    }
    if (call.body() != null) {
      // Buffered, not streamed (no fixed-length streaming mode): the JDK then sends head and
      // body of a small request in one write. Streamed, they go in two, and on a kept-alive
      // connection the body's small segment can wait behind Nagle's algorithm for the ACK of
      // the head, which the receiver may delay by up to 40 ms (HttpURLConnection offers no
      // TCP_NODELAY). Blobs sent here are held in memory anyway (DirectPush caps them).
      connection.setDoOutput(true);
      try (var out = connection.getOutputStream()) {
        out.write(call.body());
      }
    }
    int status = connection.getResponseCode();
    byte[] body;
    try (var in = status >= 400 ? connection.getErrorStream() : connection.getInputStream()) {
      // read to the end, so the connection goes back to the JDK's keep-alive cache
      body = in == null || call.method().equals("HEAD") ? new byte[0] : in.readAllBytes();
    }
    if (status == 400 && uri.getScheme().equals("http") && new String(body,
        StandardCharsets.UTF_8).contains("HTTPS server")) {
      throw new PlainHttpRefused(registry + " speaks HTTPS, not plain HTTP");
    }
    return new Reply(status, connection.getHeaderFields(), body);
  }

  /** A registry's answer: status, headers, body. */
  private record Reply(int statusCode, Map<String, List<String>> headers, byte[] body) {
    Optional<String> header(String name) {
      return headers.entrySet().stream()
          .filter(e -> e.getKey() != null && e.getKey().equalsIgnoreCase(name)
              && !e.getValue().isEmpty())
          .map(e -> e.getValue().get(0)).findFirst();
    }
  }

  /** A TLS registry's answer to a plain-HTTP request (Go's servers answer 400 and a note). */
  private static final class PlainHttpRefused extends IOException {
    PlainHttpRefused(String message) {
      super(message);
    }
  }

  private boolean loopback() {
    return ImageRef.parse(registry + "/x").isLoopback();
  }

  /** Answers a 401 challenge: basic credentials, or a bearer token from the realm it names. */
  private Optional<String> authorize(Reply challenge, String scope)
      throws IOException {
    String header = challenge.header("WWW-Authenticate").orElse("");
    String lower = header.toLowerCase(Locale.ROOT);
    if (lower.startsWith("basic")) {
      return credential.map(RegistryCredential::basicHeader);
    }
    if (!lower.startsWith("bearer")) {
      return Optional.empty();
    }
    Map<String, String> params = new LinkedHashMap<>();
    Matcher matcher = AUTH_PARAM.matcher(header);
    while (matcher.find()) {
      params.put(matcher.group(1).toLowerCase(Locale.ROOT), matcher.group(2));
    }
    String realm = params.get("realm");
    if (realm == null) {
      return Optional.empty();
    }
    StringBuilder url = new StringBuilder(realm).append(realm.contains("?") ? '&' : '?')
        .append("scope=").append(URLEncoder.encode(params.getOrDefault("scope", scope),
            StandardCharsets.UTF_8));
    if (params.containsKey("service")) {
      url.append("&service=").append(URLEncoder.encode(params.get("service"),
          StandardCharsets.UTF_8));
    }
    URI tokenUri;
    try {
      tokenUri = URI.create(url.toString());
    } catch (IllegalArgumentException e) {
      throw new IOException(registry + " named a token realm that is no URL: " + realm, e);
    }
    Reply token = call(tokenUri, "application/json",
        credential.map(RegistryCredential::basicHeader).orElse(null));
    if (token.statusCode() == 401 || token.statusCode() == 403) {
      throw unauthorized(token.statusCode());
    }
    expectOk(token, "token");
    var json = Json.MAPPER.readTree(token.body());
    String value = json.path("token").asText(json.path("access_token").asText(""));
    return value.isEmpty() ? Optional.empty() : Optional.of("Bearer " + value);
  }

  private String apiHost() {
    // Docker Hub's API lives on another host than its name.
    return registry.equals("docker.io") ? "registry-1.docker.io" : registry;
  }

  private ImageBuildException unauthorized(int status) {
    return ImageBuildException.of("authenticate", registry, "registry " + registry
        + " answered " + status + (credential.isPresent()
            ? " to user '" + credential.get().username() + "': the credentials are wrong or may"
                + " not access this repository"
            : ": it needs credentials"),
        "check the user and password given to credentials(..) (or dockerConfig()) for "
            + registry, status, null);
  }

  private ImageBuildException unreachable(IOException e) {
    return ImageBuildException.of("connect", registry, "registry " + registry
        + " is unreachable: " + (e.getMessage() == null ? e.getClass().getSimpleName()
            : e.getMessage()), "check that the registry runs and that host and port ("
        + registry + ") are right; a proxy or firewall may block it", null, e);
  }

  private void expectOk(Reply response, String what) throws IOException {
    if (response.statusCode() / 100 != 2) {
      String body = new String(response.body(), StandardCharsets.UTF_8);
      throw new IOException(registry + " answered " + response.statusCode() + " for " + what
          + ": " + (body.length() > 300 ? body.substring(0, 300) : body));
    }
  }

  /** The {@code sha256:<hex>} digest of {@code content}, as registries name blobs. */
  static String sha256(byte[] content) {
    return "sha256:" + Sha256.hex(content);
  }

  /** Forgets which scheme each registry speaks (tests start registries on reused ports). */
  public static void forgetSchemes() {
    BuildParts.current().schemes.clear();
  }
}
