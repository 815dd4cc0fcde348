package dev.fairing4j.deployer.local.internal.trainerstatus;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;

/**
 * One job's credentials for its status server: the state directory's TLS identity
 * ({@link ServerIdentity}), copied into the job, and the job's own bearer token. The submitter
 * issues them before any replica starts, as the pod's projected volume exists before its
 * container: {@code ca.crt} and {@code token} where the replicas read them, the server's key
 * beside them where they cannot. The server reads them back; its TLS context is made when the
 * first connection comes (a fresh supervisor JVM spends about 0.2 s of CPU on it), so it takes
 * nothing from the replicas' start, and a job whose script never reports never makes one.
 *
 * <p>The token has a projected service-account token's shape (a JWT whose audience names the
 * TrainJob's status path), so a client that reads its expiry finds one; its signature is random
 * bytes, since the server compares the token whole.
 */
final class StatusCredentials {
  private static final Duration TOKEN_VALIDITY = Duration.ofDays(366);
  static final String KEY_ALIAS = "server";
  // A PKCS#12 file of the owner's only: a password would be written beside it.
  static final char[] NO_PASSWORD = new char[0];

  private final byte[] token;
  private final Path keyStore;
  private SSLContext ssl; // guarded by this

  private StatusCredentials(byte[] token, Path keyStore) {
    this.token = token;
    this.keyStore = keyStore;
  }

  /**
   * Writes {@code endpoint}'s files: the CA and the token for the replicas, the server's key
   * for its server; each whole or not at all.
   */
  static void issue(StatusEndpoint endpoint, Path stateRoot) throws IOException {
    ServerIdentity identity = ServerIdentity.of(stateRoot);
    Files.createDirectories(endpoint.dir());
    Path key = ServerIdentity.ownerOnly(Files.createTempFile(endpoint.dir().getParent(),
        StatusEndpoint.KEY_FILE + ".", ".tmp"));
    Files.copy(identity.keyStore(), key, StandardCopyOption.REPLACE_EXISTING);
    Files.move(key, endpoint.keyStore(), StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
    Path ca = Files.createTempFile(endpoint.dir(), StatusEndpoint.CA_FILE + ".", ".tmp");
    Files.copy(identity.caPem(), ca, StandardCopyOption.REPLACE_EXISTING);
    Files.move(ca, endpoint.dir().resolve(StatusEndpoint.CA_FILE),
        StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    Path token = Files.createTempFile(endpoint.dir(), StatusEndpoint.TOKEN_FILE + ".", ".tmp");
    Files.write(token, token(endpoint.namespace(), endpoint.name(), Instant.now()));
    Files.move(token, endpoint.dir().resolve(StatusEndpoint.TOKEN_FILE),
        StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** The credentials {@link #issue} wrote for {@code endpoint}. */
  static StatusCredentials read(StatusEndpoint endpoint) throws IOException {
    byte[] token = Files.readAllBytes(endpoint.dir().resolve(StatusEndpoint.TOKEN_FILE));
    if (!Files.isReadable(endpoint.keyStore())) {
      throw new IOException("no server key at " + endpoint.keyStore());
    }
    return new StatusCredentials(token, endpoint.keyStore());
  }

  /** The server side of TLS, made by the first caller. */
  synchronized SSLContext ssl() throws IOException {
    if (ssl == null) {
      ssl = context(keyStore);
    }
    return ssl;
  }

  /** Whether {@code header} is {@code Bearer <this token>}, compared in constant time. */
  boolean authorizes(String header) {
    if (header == null) {
      return false;
    }
    String[] parts = header.strip().split("\\s+");
    if (parts.length != 2 || !parts[0].equalsIgnoreCase("Bearer")) {
      return false;
    }
    return MessageDigest.isEqual(token, parts[1].getBytes(StandardCharsets.US_ASCII));
  }

  @Override
  public String toString() {
    return "StatusCredentials[token=***]";
  }

  private static SSLContext context(Path keyStore) throws IOException {
    try (InputStream in = Files.newInputStream(keyStore)) {
      KeyStore keys = KeyStore.getInstance("PKCS12");
      keys.load(in, NO_PASSWORD);
      KeyManagerFactory managers = KeyManagerFactory.getInstance(
          KeyManagerFactory.getDefaultAlgorithm());
      managers.init(keys, NO_PASSWORD);
      SSLContext ssl = SSLContext.getInstance("TLS");
      ssl.init(managers.getKeyManagers(), null, new SecureRandom());
      return ssl;
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot read the Trainer status server's key " + keyStore, e);
    }
  }

  private static byte[] token(String namespace, String name, Instant now) {
    Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
    SecureRandom random = new SecureRandom();
    byte[] nonce = new byte[16];
    random.nextBytes(nonce);
    byte[] signature = new byte[32];
    random.nextBytes(signature);
    String header = b64.encodeToString("{\"alg\":\"HS256\",\"typ\":\"JWT\"}"
        .getBytes(StandardCharsets.UTF_8));
    String claims = "{\"aud\":[\"trainer.kubeflow.org/v1alpha1/namespaces/" + namespace
        + "/trainjobs/" + name + "/status\"],\"iss\":\"fairing4j-local\",\"iat\":"
        + now.getEpochSecond() + ",\"exp\":" + now.plus(TOKEN_VALIDITY).getEpochSecond()
        + ",\"jti\":\"" + b64.encodeToString(nonce) + "\",\"kubernetes.io\":{\"namespace\":\""
        + namespace + "\"}}";
    return (header + "." + b64.encodeToString(claims.getBytes(StandardCharsets.UTF_8)) + "."
        + b64.encodeToString(signature)).getBytes(StandardCharsets.US_ASCII);
  }
}
