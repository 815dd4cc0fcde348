package dev.fairing4j.builder.internal.image;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.JvmWide;
import dev.fairing4j.core.internal.Sha256;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the JVM trust a private CA in addition to what it trusts already.
 *
 * <p>Jib builds its HTTPS connections from the JVM's default {@code SSLContext} and offers no
 * per-build trust, so the only way to reach a registry with a private CA is to change that
 * default: this class installs (with {@code SSLContext.setDefault}) a context whose trust is the
 * UNION of the JVM's own trust managers (the JDK default: the trust store named by
 * {@code javax.net.ssl.trustStore}, else {@code cacerts}) and the given CAs. A server is trusted
 * when either trusts it; hostname verification stays on. The client key material a host
 * configured with {@code javax.net.ssl.keyStore} is kept too. No system property is changed.
 *
 * <p>The change is process-wide, so it is announced once at WARN, and again only when a later
 * build adds CAs not trusted yet. It cannot keep a default context the host installed itself with
 * {@code SSLContext.setDefault}: an SSLContext does not reveal its trust managers.
 */
public final class TrustedCertificates {
  private static final Logger LOG = LoggerFactory.getLogger(TrustedCertificates.class);
  /** Every CA added so far, by fingerprint, in the order added. */
  @JvmWide(why = "it mirrors the JVM's default SSLContext, which is process-wide (Jib offers no "
      + "per-build trust)", bound = "the distinct CA certificates builds named, each once; "
      + "trusted for the JVM's life as the JDK's own trust store is")
  private static final Map<String, X509Certificate> ADDED = new LinkedHashMap<>();
  @JvmWide(why = "the default SSLContext this class installed (see ADDED)", bound = "one")
  private static SSLContext current;

  private TrustedCertificates() {}

  /**
   * Adds the CA certificates in the PEM files to what the JVM trusts; returns the (new) default
   * context.
   *
   * @throws InvalidInputException when a file is not a readable PEM certificate file
   */
  public static synchronized SSLContext install(List<Path> pemFiles) {
    Map<String, X509Certificate> fresh = new LinkedHashMap<>();
    for (Path pem : pemFiles) {
      for (X509Certificate certificate : read(pem)) {
        String fingerprint = fingerprint(certificate);
        if (!ADDED.containsKey(fingerprint)) {
          fresh.put(fingerprint, certificate);
        }
      }
    }
    if (current != null && fresh.isEmpty()) {
      return current;
    }
    try {
      Map<String, X509Certificate> all = new LinkedHashMap<>(ADDED);
      all.putAll(fresh);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(systemKeyManagers(), new TrustManager[] {
          new UnionTrustManager(List.of(jvmTrust(), trustOnly(all.values())))}, null);
      SSLContext.setDefault(context);
      ADDED.putAll(fresh);
      current = context;
      LOG.warn("trustedCertificates(..) changed the JVM's default SSLContext, process-wide: every"
          + " HTTPS client in this JVM that uses the default now also trusts {} CA(s) from {}"
          + " ({}), besides what the JVM trusted before ({}); javax.net.ssl.* properties are"
          + " unchanged", fresh.size(), pemFiles, subjects(fresh.values()), jvmTrustSource());
      return context;
    } catch (GeneralSecurityException | IOException e) {
      throw FairingException.of("trust private CA", pemFiles.toString(), "cannot extend the"
          + " JVM's trust: " + e.getMessage(), "check the javax.net.ssl.trustStore and"
          + " javax.net.ssl.keyStore settings of this JVM", e);
    }
  }

  /** The JVM's default SSL context, as Jib will see it. */
  public static synchronized SSLContext defaultContext() {
    try {
      return current != null ? current : SSLContext.getDefault();
    } catch (GeneralSecurityException e) {
      throw FairingException.of("set up TLS", null, "the JVM has no default SSLContext: "
          + e.getMessage(), "check the javax.net.ssl.* settings of this JVM", e);
    }
  }

  private static List<X509Certificate> read(Path pem) {
    if (Files.isDirectory(pem)) {
      throw InvalidInputException.of("trustedCertificates", "'" + pem + "' is a directory",
          "give the path of the registry's CA certificate file (PEM)");
    }
    try (InputStream in = Files.newInputStream(pem)) {
      Collection<? extends java.security.cert.Certificate> certificates =
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

  /** What the JDK trusts by default: {@code javax.net.ssl.trustStore}, else cacerts. */
  private static X509ExtendedTrustManager jvmTrust() throws GeneralSecurityException {
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init((KeyStore) null);
    return x509(factory.getTrustManagers());
  }

  private static X509ExtendedTrustManager trustOnly(Collection<X509Certificate> cas)
      throws GeneralSecurityException, IOException {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    for (X509Certificate ca : cas) {
      store.setCertificateEntry("fairing4j-" + fingerprint(ca), ca);
    }
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(store);
    return x509(factory.getTrustManagers());
  }

  /**
   * The key managers the JDK's default context gets from {@code javax.net.ssl.keyStore*}, so a
   * host that presents a client certificate keeps presenting it; none when no key store is set.
   */
  static KeyManager[] systemKeyManagers() throws GeneralSecurityException, IOException {
    String file = System.getProperty("javax.net.ssl.keyStore", "");
    String type = System.getProperty("javax.net.ssl.keyStoreType", KeyStore.getDefaultType());
    String provider = System.getProperty("javax.net.ssl.keyStoreProvider", "");
    String password = System.getProperty("javax.net.ssl.keyStorePassword");
    if (file.isEmpty() && !type.equalsIgnoreCase("PKCS11")) {
      return null;
    }
    KeyStore store = provider.isEmpty() ? KeyStore.getInstance(type)
        : KeyStore.getInstance(type, provider);
    char[] secret = password == null ? null : password.toCharArray();
    if (file.isEmpty() || file.equals("NONE")) {
      store.load(null, secret);
    } else {
      try (InputStream in = Files.newInputStream(Path.of(file))) {
        store.load(in, secret);
      }
    }
    KeyManagerFactory factory =
        KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    factory.init(store, secret);
    return factory.getKeyManagers();
  }

  private static String jvmTrustSource() {
    String store = System.getProperty("javax.net.ssl.trustStore", "");
    return store.isEmpty() ? "the JDK's cacerts" : "the trust store " + store;
  }

  private static X509ExtendedTrustManager x509(TrustManager[] managers)
      throws GeneralSecurityException {
    return Arrays.stream(managers).filter(X509ExtendedTrustManager.class::isInstance)
        .map(X509ExtendedTrustManager.class::cast).findFirst()
        .orElseThrow(() -> new GeneralSecurityException("no X509 trust manager"));
  }

  private static String subjects(Collection<X509Certificate> certificates) {
    return certificates.stream().map(c -> c.getSubjectX500Principal().getName()).toList()
        .toString();
  }

  private static String fingerprint(X509Certificate certificate) {
    try {
      return Sha256.hex(certificate.getEncoded()).substring(0, 16);
    } catch (GeneralSecurityException e) {
      throw FairingException.of("read certificate", certificate.getSubjectX500Principal()
          .getName(), e.getMessage(), "give the registry's CA certificate in PEM form", e);
    }
  }

  /**
   * Trusts a peer when any of its delegates does. Extended (socket- and engine-aware) calls go to
   * the delegates' extended methods, so each still checks the host name it was asked for.
   */
  static final class UnionTrustManager extends X509ExtendedTrustManager {
    private final List<X509ExtendedTrustManager> delegates;

    UnionTrustManager(List<X509ExtendedTrustManager> delegates) {
      this.delegates = List.copyOf(delegates);
    }

    private interface Check {
      void run(X509ExtendedTrustManager delegate) throws CertificateException;
    }

    private void anyOf(Check check) throws CertificateException {
      CertificateException first = null;
      for (X509ExtendedTrustManager delegate : delegates) {
        try {
          check.run(delegate);
          return;
        } catch (CertificateException e) {
          if (first == null) {
            first = e;
          } else {
            first.addSuppressed(e);
          }
        }
      }
      throw first != null ? first : new CertificateException("no trust manager");
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      anyOf(d -> d.checkClientTrusted(chain, authType));
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      anyOf(d -> d.checkServerTrusted(chain, authType));
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      anyOf(d -> d.checkClientTrusted(chain, authType, socket));
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws CertificateException {
      anyOf(d -> d.checkServerTrusted(chain, authType, socket));
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      anyOf(d -> d.checkClientTrusted(chain, authType, engine));
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws CertificateException {
      anyOf(d -> d.checkServerTrusted(chain, authType, engine));
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      List<X509Certificate> issuers = new ArrayList<>();
      for (X509ExtendedTrustManager delegate : delegates) {
        issuers.addAll(Arrays.asList(delegate.getAcceptedIssuers()));
      }
      return issuers.toArray(new X509Certificate[0]);
    }
  }
}
