package dev.fairing4j.deployer.local.internal.trainerstatus;

import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The TLS identity of a state directory's status servers: a CA of its own and the server
 * certificate it signed for {@code 127.0.0.1} and {@code localhost}, with the server's key, in
 * {@code <state>/trainer-status/} ({@code ca.crt}, {@code server.p12}; only the owner reads
 * them). Made once, by the first TrainJob submitted there, and renewed 30 days before it expires:
 * making one costs about 0.6 s in a fresh JVM (Bouncy Castle's classes, the keys), which every
 * job's start would pay otherwise, and a supervisor is a fresh JVM. Each job gets a copy (its own
 * token is what opens its server), so a renewal never mismatches a running job's CA and key.
 *
 * @param caPem the CA certificate, PEM
 * @param keyStore the server's key and certificate chain, PKCS#12 without a password
 */
record ServerIdentity(Path caPem, Path keyStore) {
  private static final Duration VALIDITY = Duration.ofDays(366);
  private static final Duration RENEW_BEFORE = Duration.ofDays(30);
  private static final String DIR = "trainer-status";

  /** The identity of {@code stateRoot}, made or renewed first when needed. */
  static ServerIdentity of(Path stateRoot) throws IOException {
    Path dir = stateRoot.resolve(DIR);
    ServerIdentity identity = new ServerIdentity(dir.resolve("ca.crt"), dir.resolve("server.p12"));
    Path expires = dir.resolve("expires");
    if (identity.fresh(expires)) {
      return identity;
    }
    Files.createDirectories(dir);
    try (FileChannel channel = FileChannel.open(dir.resolve(".lock"), StandardOpenOption.CREATE,
        StandardOpenOption.WRITE); FileLock lock = channel.lock()) {
      if (!identity.fresh(expires)) { // another JVM may have made it while this one waited
        identity.make(expires);
      }
    }
    return identity;
  }

  private boolean fresh(Path expires) {
    try {
      Instant until = Instant.ofEpochSecond(Long.parseLong(Files.readString(expires).strip()));
      return until.isAfter(Instant.now().plus(RENEW_BEFORE)) && Files.isRegularFile(caPem)
          && Files.isRegularFile(keyStore);
    } catch (IOException | NumberFormatException e) {
      return false;
    }
  }

  private void make(Path expires) throws IOException {
    try {
      SecureRandom random = new SecureRandom();
      Instant now = Instant.now();
      Instant until = now.plus(VALIDITY);
      KeyPair caKeys = keyPair(random);
      X500Name caName = new X500Name("CN=fairing4j local Trainer status CA");
      X509Certificate ca = sign(new JcaX509v3CertificateBuilder(caName, serial(random),
          Date.from(now.minus(Duration.ofMinutes(5))), Date.from(until), caName,
          caKeys.getPublic())
          .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
          .addExtension(Extension.keyUsage, true,
              new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign)), caKeys);
      KeyPair serverKeys = keyPair(random);
      X509Certificate server = sign(new JcaX509v3CertificateBuilder(caName, serial(random),
          Date.from(now.minus(Duration.ofMinutes(5))), Date.from(until),
          new X500Name("CN=127.0.0.1"), serverKeys.getPublic())
          .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
          .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
          .addExtension(Extension.extendedKeyUsage, false,
              new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth))
          .addExtension(Extension.subjectAlternativeName, false, new GeneralNames(
              new GeneralName[] {
                  new GeneralName(GeneralName.iPAddress,
                      InetAddress.getLoopbackAddress().getHostAddress()),
                  new GeneralName(GeneralName.dNSName, "localhost")})), caKeys);
      KeyStore keys = KeyStore.getInstance("PKCS12");
      keys.load(null, null);
      keys.setKeyEntry(StatusCredentials.KEY_ALIAS, serverKeys.getPrivate(),
          StatusCredentials.NO_PASSWORD, new X509Certificate[] {server, ca});
      Path dir = keyStore.getParent();
      Path keyTmp = ownerOnly(Files.createTempFile(dir, "server.p12.", ".tmp"));
      try (OutputStream out = Files.newOutputStream(keyTmp)) {
        keys.store(out, StatusCredentials.NO_PASSWORD);
      }
      StringWriter pem = new StringWriter();
      try (JcaPEMWriter writer = new JcaPEMWriter(pem)) {
        writer.writeObject(ca);
      }
      Path caTmp = Files.createTempFile(dir, "ca.crt.", ".tmp");
      Files.writeString(caTmp, pem.toString(), StandardCharsets.US_ASCII);
      Path expiresTmp = Files.createTempFile(dir, "expires.", ".tmp");
      Files.writeString(expiresTmp, String.valueOf(until.getEpochSecond()));
      move(keyTmp, keyStore);
      move(caTmp, caPem);
      move(expiresTmp, expires); // last: the pair is whole once it says when it expires
    } catch (GeneralSecurityException | OperatorCreationException e) {
      throw new IllegalStateException("cannot make the Trainer status server's certificates", e);
    }
  }

  /** {@code file} readable and writable by its owner only. */
  static Path ownerOnly(Path file) throws IOException {
    try {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system: its default permissions stand
    }
    return file;
  }

  private static void move(Path from, Path to) throws IOException {
    Files.move(from, to, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private static X509Certificate sign(X509v3CertificateBuilder builder, KeyPair issuer)
      throws OperatorCreationException, GeneralSecurityException {
    return new JcaX509CertificateConverter().getCertificate(builder.build(
        new JcaContentSignerBuilder("SHA256withECDSA").build(issuer.getPrivate())));
  }

  private static KeyPair keyPair(SecureRandom random) throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"), random);
    return generator.generateKeyPair();
  }

  private static BigInteger serial(SecureRandom random) {
    return new BigInteger(63, random).add(BigInteger.ONE);
  }
}
