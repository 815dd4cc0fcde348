package dev.fairing4j.core.testing;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;

/**
 * A throw-away certificate authority and one server certificate for 127.0.0.1 and localhost,
 * made with the JDK alone. The JDK has no public API to issue certificates and keytool cannot
 * export a private key (the registry needs one as PEM), so the few DER structures X.509 needs are
 * written by hand here. Keys are EC P-256: fast to generate and read by both Java and Go.
 */
final class TestPki {
  private static final byte[] OID_ECDSA_SHA256 = oid(1, 2, 840, 10045, 4, 3, 2);
  private static final byte[] OID_COMMON_NAME = oid(2, 5, 4, 3);
  private static final byte[] OID_BASIC_CONSTRAINTS = oid(2, 5, 29, 19);
  private static final byte[] OID_KEY_USAGE = oid(2, 5, 29, 15);
  private static final byte[] OID_EXT_KEY_USAGE = oid(2, 5, 29, 37);
  private static final byte[] OID_SUBJECT_ALT_NAME = oid(2, 5, 29, 17);
  private static final byte[] OID_SERVER_AUTH = oid(1, 3, 6, 1, 5, 5, 7, 3, 1);
  private static final DateTimeFormatter UTC_TIME =
      DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").withZone(ZoneOffset.UTC);

  final X509Certificate caCertificate;
  final X509Certificate serverCertificate;
  final PrivateKey serverKey;

  private TestPki(X509Certificate ca, X509Certificate server, PrivateKey serverKey) {
    this.caCertificate = ca;
    this.serverCertificate = server;
    this.serverKey = serverKey;
  }

  /** A new CA and a server certificate it signed, valid from a day ago for 30 days. */
  static TestPki create() {
    try {
      KeyPair caKeys = newKeyPair();
      KeyPair serverKeys = newKeyPair();
      byte[] caName = name("fairing4j test CA");
      X509Certificate ca = sign(caName, caName, caKeys, caKeys.getPrivate(),
          extension(OID_BASIC_CONSTRAINTS, true, seq(bool(true))),
          extension(OID_KEY_USAGE, true, keyUsage(0x86)));  // digitalSignature, keyCertSign, cRLSign
      X509Certificate server = sign(caName, name("127.0.0.1"), serverKeys, caKeys.getPrivate(),
          extension(OID_BASIC_CONSTRAINTS, true, seq()),
          extension(OID_KEY_USAGE, true, keyUsage(0x80)),   // digitalSignature
          extension(OID_EXT_KEY_USAGE, false, seq(OID_SERVER_AUTH)),
          extension(OID_SUBJECT_ALT_NAME, false, seq(
              tlv(0x82, "localhost".getBytes(StandardCharsets.US_ASCII)),
              tlv(0x87, InetAddress.getLoopbackAddress().getAddress()))));
      server.verify(ca.getPublicKey());
      return new TestPki(ca, server, serverKeys.getPrivate());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot create test certificates", e);
    }
  }

  void writeCaPem(Path file) throws IOException {
    writePem(file, "CERTIFICATE", encoded(caCertificate));
  }

  void writeServerCertificatePem(Path file) throws IOException {
    writePem(file, "CERTIFICATE", encoded(serverCertificate));
  }

  void writeServerKeyPem(Path file) throws IOException {
    writePem(file, "PRIVATE KEY", serverKey.getEncoded());  // PKCS#8
  }

  /**
   * Writes a new EC key pair as PEM: the private key (PKCS#8) and the public key
   * (SubjectPublicKeyInfo), e.g. for an API server's service-account token signing.
   */
  static void writeKeyPair(Path privatePem, Path publicPem) throws IOException {
    try {
      KeyPair keys = newKeyPair();
      writePem(privatePem, "PRIVATE KEY", keys.getPrivate().getEncoded());
      writePem(publicPem, "PUBLIC KEY", keys.getPublic().getEncoded());
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot create a key pair", e);
    }
  }

  /** The CA certificate as PEM text. */
  String caPem() throws IOException {
    return pem("CERTIFICATE", encoded(caCertificate));
  }

  /** Writes a PKCS12 trust store holding only the CA certificate. */
  void writeTrustStore(Path file, char[] password) throws IOException {
    try (OutputStream out = Files.newOutputStream(file)) {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setCertificateEntry("fairing4j-test-ca", caCertificate);
      store.store(out, password);
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot write trust store " + file, e);
    }
  }

  private static byte[] encoded(X509Certificate certificate) throws IOException {
    try {
      return certificate.getEncoded();
    } catch (GeneralSecurityException e) {
      throw new IOException(e);
    }
  }

  private static void writePem(Path file, String type, byte[] der) throws IOException {
    Files.writeString(file, pem(type, der));
  }

  private static String pem(String type, byte[] der) {
    String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
        .encodeToString(der);
    return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
  }

  private static KeyPair newKeyPair() throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    return generator.generateKeyPair();
  }

  private static X509Certificate sign(byte[] issuer, byte[] subject, KeyPair subjectKeys,
      PrivateKey issuerKey, byte[]... extensions) throws GeneralSecurityException {
    Instant now = Instant.now();
    byte[] algorithm = seq(OID_ECDSA_SHA256);
    byte[] tbs = seq(
        tlv(0xa0, integer(BigInteger.TWO)),                                    // v3
        integer(new BigInteger(63, new SecureRandom()).add(BigInteger.ONE)),   // serial
        algorithm,
        issuer,
        seq(utcTime(now.minus(Duration.ofDays(1))), utcTime(now.plus(Duration.ofDays(30)))),
        subject,
        subjectKeys.getPublic().getEncoded(),                                  // SubjectPublicKeyInfo
        tlv(0xa3, seq(extensions)));
    Signature signer = Signature.getInstance("SHA256withECDSA");
    signer.initSign(issuerKey);
    signer.update(tbs);
    byte[] certificate = seq(tbs, algorithm, bitString(signer.sign(), 0));
    return (X509Certificate) CertificateFactory.getInstance("X.509")
        .generateCertificate(new ByteArrayInputStream(certificate));
  }

  private static byte[] name(String commonName) {
    return seq(tlv(0x31, seq(OID_COMMON_NAME, tlv(0x0c, commonName.getBytes(StandardCharsets.UTF_8)))));
  }

  private static byte[] extension(byte[] oid, boolean critical, byte[] value) {
    return critical ? seq(oid, bool(true), tlv(0x04, value)) : seq(oid, tlv(0x04, value));
  }

  private static byte[] keyUsage(int bits) {
    return bitString(new byte[] {(byte) bits}, Integer.numberOfTrailingZeros(bits));
  }

  private static byte[] bitString(byte[] bytes, int unusedBits) {
    byte[] content = new byte[bytes.length + 1];
    content[0] = (byte) unusedBits;
    System.arraycopy(bytes, 0, content, 1, bytes.length);
    return tlv(0x03, content);
  }

  private static byte[] utcTime(Instant instant) {
    return tlv(0x17, UTC_TIME.format(instant).getBytes(StandardCharsets.US_ASCII));
  }

  private static byte[] integer(BigInteger value) {
    return tlv(0x02, value.toByteArray());
  }

  private static byte[] bool(boolean value) {
    return tlv(0x01, new byte[] {(byte) (value ? 0xff : 0)});
  }

  private static byte[] oid(int... arcs) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(40 * arcs[0] + arcs[1]);
    for (int i = 2; i < arcs.length; i++) {
      int arc = arcs[i];
      int groups = Math.max(1, (32 - Integer.numberOfLeadingZeros(arc) + 6) / 7);
      for (int g = groups - 1; g >= 0; g--) {
        int sevenBits = (arc >>> (7 * g)) & 0x7f;
        out.write(g > 0 ? sevenBits | 0x80 : sevenBits);
      }
    }
    return tlv(0x06, out.toByteArray());
  }

  private static byte[] seq(byte[]... items) {
    ByteArrayOutputStream content = new ByteArrayOutputStream();
    for (byte[] item : items) {
      content.writeBytes(item);
    }
    return tlv(0x30, content.toByteArray());
  }

  private static byte[] tlv(int tag, byte[] content) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(tag);
    int length = content.length;
    if (length < 0x80) {
      out.write(length);
    } else {
      int bytes = (32 - Integer.numberOfLeadingZeros(length) + 7) / 8;
      out.write(0x80 | bytes);
      for (int i = bytes - 1; i >= 0; i--) {
        out.write(length >>> (8 * i));
      }
    }
    out.writeBytes(content);
    return out.toByteArray();
  }
}
