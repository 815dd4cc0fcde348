package dev.fairing4j.core.testing;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * bcrypt ({@code $2a$}), the only hash the registry's htpasswd auth accepts. Written here so the
 * TLS+auth fixture needs no {@code htpasswd} binary and no extra test dependency.
 *
 * <p>Blowfish starts from the fractional hex digits of pi (18 P words, then 4 x 256 S words). They
 * are computed once with Machin's formula instead of pasting 1042 constants; a unit test checks
 * the first and last word and known bcrypt vectors.
 */
final class Bcrypt {
  private static final int P_WORDS = 18;
  private static final int S_WORDS = 4 * 256;
  private static final int[] PI_WORDS = piFractionWords(P_WORDS + S_WORDS);
  private static final String STANDARD_B64 =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  private static final String BCRYPT_B64 =
      "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  // "OrpheanBeholderScryDoubt", the plaintext bcrypt encrypts 64 times
  private static final int[] MAGIC = {
      0x4f727068, 0x65616e42, 0x65686f6c, 0x64657253, 0x63727944, 0x6f756274};

  private final int[] p = new int[P_WORDS];
  private final int[] s = new int[S_WORDS];

  private Bcrypt() {
    System.arraycopy(PI_WORDS, 0, p, 0, P_WORDS);
    System.arraycopy(PI_WORDS, P_WORDS, s, 0, S_WORDS);
  }

  /** A fresh {@code $2a$} hash of {@code password} with a random salt; cost 4 keeps tests fast. */
  static String hash(String password, int cost) {
    byte[] salt = new byte[16];
    new SecureRandom().nextBytes(salt);
    return hash(password, cost, salt);
  }

  /** The {@code $2a$} hash of {@code password} with the salt encoded in {@code saltString}. */
  static String hash(String password, String saltString) {
    String[] parts = saltString.split("\\$");
    int cost = Integer.parseInt(parts[2]);
    return hash(password, cost, decode(parts[3].substring(0, 22), 16));
  }

  static String hash(String password, int cost, byte[] salt) {
    if (cost < 4 || cost > 31 || salt.length != 16) {
      throw new IllegalArgumentException("cost 4..31 and a 16-byte salt");
    }
    byte[] utf8 = password.getBytes(StandardCharsets.UTF_8);
    // $2a$ keys include the terminating NUL and stop at 72 bytes
    byte[] key = new byte[Math.min(utf8.length + 1, 72)];
    System.arraycopy(utf8, 0, key, 0, Math.min(utf8.length, key.length));
    Bcrypt state = new Bcrypt();
    state.expensiveKeySchedule(salt, key);
    for (long i = 0, rounds = 1L << cost; i < rounds; i++) {
      state.expandKey(key);
      state.expandKey(salt);
    }
    int[] text = MAGIC.clone();
    for (int i = 0; i < 64; i++) {
      for (int j = 0; j < text.length; j += 2) {
        state.encipher(text, j);
      }
    }
    byte[] raw = new byte[text.length * 4];
    for (int i = 0; i < text.length; i++) {
      raw[4 * i] = (byte) (text[i] >>> 24);
      raw[4 * i + 1] = (byte) (text[i] >>> 16);
      raw[4 * i + 2] = (byte) (text[i] >>> 8);
      raw[4 * i + 3] = (byte) text[i];
    }
    byte[] digest = new byte[23]; // bcrypt drops the last byte of the 24
    System.arraycopy(raw, 0, digest, 0, 23);
    return String.format("$2a$%02d$%s%s", cost, encode(salt), encode(digest));
  }

  private void encipher(int[] block, int offset) {
    int left = block[offset] ^ p[0];
    int right = block[offset + 1];
    for (int i = 1; i <= 16; i += 2) {
      right ^= f(left) ^ p[i];
      left ^= f(right) ^ p[i + 1];
    }
    block[offset] = right ^ p[17];
    block[offset + 1] = left;
  }

  private int f(int x) {
    return ((s[x >>> 24] + s[0x100 | ((x >>> 16) & 0xff)]) ^ s[0x200 | ((x >>> 8) & 0xff)])
        + s[0x300 | (x & 0xff)];
  }

  private void expensiveKeySchedule(byte[] salt, byte[] key) {
    int[] keyPos = {0};
    int[] saltPos = {0};
    for (int i = 0; i < P_WORDS; i++) {
      p[i] ^= nextWord(key, keyPos);
    }
    int[] block = {0, 0};
    for (int i = 0; i < P_WORDS; i += 2) {
      block[0] ^= nextWord(salt, saltPos);
      block[1] ^= nextWord(salt, saltPos);
      encipher(block, 0);
      p[i] = block[0];
      p[i + 1] = block[1];
    }
    for (int i = 0; i < S_WORDS; i += 2) {
      block[0] ^= nextWord(salt, saltPos);
      block[1] ^= nextWord(salt, saltPos);
      encipher(block, 0);
      s[i] = block[0];
      s[i + 1] = block[1];
    }
  }

  private void expandKey(byte[] key) {
    int[] keyPos = {0};
    for (int i = 0; i < P_WORDS; i++) {
      p[i] ^= nextWord(key, keyPos);
    }
    int[] block = {0, 0};
    for (int i = 0; i < P_WORDS; i += 2) {
      encipher(block, 0);
      p[i] = block[0];
      p[i + 1] = block[1];
    }
    for (int i = 0; i < S_WORDS; i += 2) {
      encipher(block, 0);
      s[i] = block[0];
      s[i + 1] = block[1];
    }
  }

  private static int nextWord(byte[] data, int[] pos) {
    int word = 0;
    for (int i = 0; i < 4; i++) {
      word = (word << 8) | (data[pos[0]] & 0xff);
      pos[0] = (pos[0] + 1) % data.length;
    }
    return word;
  }

  private static String encode(byte[] bytes) {
    String standard = Base64.getEncoder().withoutPadding().encodeToString(bytes);
    StringBuilder out = new StringBuilder(standard.length());
    for (char c : standard.toCharArray()) {
      out.append(BCRYPT_B64.charAt(STANDARD_B64.indexOf(c)));
    }
    return out.toString();
  }

  private static byte[] decode(String text, int length) {
    StringBuilder standard = new StringBuilder(text.length());
    for (char c : text.toCharArray()) {
      int index = BCRYPT_B64.indexOf(c);
      if (index < 0) {
        throw new IllegalArgumentException("not bcrypt base64: " + text);
      }
      standard.append(STANDARD_B64.charAt(index));
    }
    byte[] decoded = Base64.getDecoder().decode(standard.toString());
    byte[] out = new byte[length];
    System.arraycopy(decoded, 0, out, 0, length);
    return out;
  }

  /** The first {@code count} 32-bit words of pi's fractional part, in hex order. */
  static int[] piFractionWords(int count) {
    int bits = 32 * count;
    int guard = 64;
    BigInteger one = BigInteger.ONE.shiftLeft(bits + guard);
    // pi = 16 atan(1/5) - 4 atan(1/239)
    BigInteger pi = arctanInverse(5, one).shiftLeft(4).subtract(arctanInverse(239, one).shiftLeft(2))
        .shiftRight(guard);
    BigInteger fraction = pi.subtract(BigInteger.valueOf(3).shiftLeft(bits));
    int[] words = new int[count];
    for (int i = 0; i < count; i++) {
      words[i] = fraction.shiftRight(bits - 32 * (i + 1)).intValue();
    }
    return words;
  }

  private static BigInteger arctanInverse(int x, BigInteger one) {
    BigInteger xSquared = BigInteger.valueOf((long) x * x);
    BigInteger power = one.divide(BigInteger.valueOf(x));
    BigInteger sum = power;
    for (int n = 3, sign = -1; power.signum() != 0; n += 2, sign = -sign) {
      power = power.divide(xSquared);
      BigInteger term = power.divide(BigInteger.valueOf(n));
      sum = sign < 0 ? sum.subtract(term) : sum.add(term);
    }
    return sum;
  }
}
