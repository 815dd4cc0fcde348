package dev.fairing4j.build.image.internal;

import dev.fairing4j.core.InvalidInputException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Collection;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the JVM trust a private CA in addition to the ones it trusts already.
 *
 * <p>Jib builds its HTTPS client from the JVM's system trust settings and offers no per-build
 * trust, so the only honest way to reach a registry with a private CA is to extend what the JVM
 * trusts: this class writes a PKCS12 trust store holding the current default CAs plus the given
 * certificates, points {@code javax.net.ssl.trustStore} at it and installs it as the default
 * {@code SSLContext}. Verification stays on; nothing is trusted that was not named. The change is
 * process-wide (logged once per certificate set) and only ever adds.
 */
public final class TrustedCertificates {
  private static final Logger LOG = LoggerFactory.getLogger(TrustedCertificates.class);
  private static final Set<String> INSTALLED = new LinkedHashSet<>();
  private static SSLContext current;

  private TrustedCertificates() {}

  /** Adds the certificates in the PEM files to what the JVM trusts; returns the new context. */
  public static synchronized SSLContext install(List<Path> pemFiles) {
    List<X509Certificate> added = new java.util.ArrayList<>();
    for (Path pem : pemFiles) {
      added.addAll(read(pem));
    }
    Set<String> fingerprints = new LinkedHashSet<>();
    for (X509Certificate certificate : added) {
      fingerprints.add(fingerprint(certificate));
    }
    if (current != null && INSTALLED.containsAll(fingerprints)) {
      return current;
    }
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      int index = 0;
      for (X509Certificate ca : defaultTrustManager().getAcceptedIssuers()) {
        store.setCertificateEntry("default-" + index++, ca);
      }
      for (X509Certificate certificate : added) {
        store.setCertificateEntry("fairing4j-" + fingerprint(certificate), certificate);
      }
      char[] password = randomPassword();
      Path file = Files.createTempFile("fairing4j-truststore-", ".p12");
      file.toFile().deleteOnExit();
      try (OutputStream out = Files.newOutputStream(file)) {
        store.store(out, password);
      }
      TrustManagerFactory factory =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(store);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, factory.getTrustManagers(), null);
      // Jib's HTTP client initialises its own contexts from these properties.
      System.setProperty("javax.net.ssl.trustStore", file.toString());
      System.setProperty("javax.net.ssl.trustStoreType", "PKCS12");
      System.setProperty("javax.net.ssl.trustStorePassword", new String(password));
      SSLContext.setDefault(context);
      INSTALLED.addAll(fingerprints);
      current = context;
      LOG.info("the JVM now also trusts {} certificate(s) from {} (for registries with a private"
          + " CA)", added.size(), pemFiles);
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot build a trust store", e);
    }
  }

  /** The JVM's default SSL context, as Jib will see it. */
  public static synchronized SSLContext defaultContext() {
    try {
      return current != null ? current : SSLContext.getDefault();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<X509Certificate> read(Path pem) {
    try (InputStream in = Files.newInputStream(pem)) {
      Collection<? extends Certificate> certificates =
          CertificateFactory.getInstance("X.509").generateCertificates(in);
      if (certificates.isEmpty()) {
        throw new IOException("no certificate in it");
      }
      return certificates.stream().map(X509Certificate.class::cast).toList();
    } catch (IOException | GeneralSecurityException e) {
      throw InvalidInputException.of("trustedCertificates", "'" + pem
          + "' is not a readable PEM certificate file: " + e.getMessage(),
          "give the registry's CA certificate in PEM form (-----BEGIN CERTIFICATE-----)", e);
    }
  }

  private static X509TrustManager defaultTrustManager() throws GeneralSecurityException {
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init((KeyStore) null);
    for (var manager : factory.getTrustManagers()) {
      if (manager instanceof X509TrustManager x509) {
        return x509;
      }
    }
    throw new GeneralSecurityException("no X509 trust manager");
  }

  private static String fingerprint(X509Certificate certificate) {
    try {
      return HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
          .digest(certificate.getEncoded())).substring(0, 16);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static char[] randomPassword() {
    byte[] bytes = new byte[18];
    new SecureRandom().nextBytes(bytes);
    return java.util.Base64.getEncoder().encodeToString(bytes).toCharArray();
  }
}
