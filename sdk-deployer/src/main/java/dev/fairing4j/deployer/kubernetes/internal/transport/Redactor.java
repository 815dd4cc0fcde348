package dev.fairing4j.deployer.kubernetes.internal.transport;

import dev.fairing4j.deployer.job.internal.JsonTree;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Masks credentials in text that leaves the SDK (exception messages, log lines): every secret value
 * the kubeconfig holds is replaced by {@code ****}, and so are bearer tokens and URL passwords
 * wherever they appear. A last line of defence: messages are written not to contain secrets in the
 * first place, but low-level libraries sometimes quote what they were given.
 */
public final class Redactor {
  /** Masks nothing but bearer tokens and URL passwords. */
  public static final Redactor NONE = new Redactor(Set.of());

  private static final String MASK = "****";
  // Shorter values (e.g. "true", a username) are too likely to occur in ordinary text.
  private static final int MIN_SECRET_LENGTH = 6;
  private static final Pattern BEARER = Pattern.compile("(?i)(bearer\\s+)[A-Za-z0-9._~+/=-]+");
  private static final Pattern URL_PASSWORD = Pattern.compile("(://[^/:@\\s]+:)[^@/\\s]+@");

  // Settings of exec plugins that are plain configuration; masking them would garble messages.
  private static final Set<String> NOT_SECRET =
      Set.of("apiVersion", "command", "installHint", "interactiveMode", "provideClusterInfo");

  private final List<String> secrets;

  private Redactor(Set<String> secrets) {
    // Longest first, so a secret containing another is masked whole.
    this.secrets = secrets.stream().sorted(Comparator.comparingInt(String::length).reversed())
        .toList();
  }

  /** Masks {@code secrets}. */
  public static Redactor of(Set<String> secrets) {
    Set<String> kept = new TreeSet<>();
    for (String secret : secrets) {
      if (secret != null && secret.length() >= MIN_SECRET_LENGTH) {
        kept.add(secret);
      }
    }
    return new Redactor(kept);
  }

  /**
   * Masks every string leaf of {@code users} (a kubeconfig's {@code users[*].user} maps): tokens,
   * passwords, client keys, auth-provider and exec settings. Over-masking a harmless value costs
   * nothing; missing a secret would leak it.
   */
  public static Redactor ofKubeconfigUsers(List<Map<String, Object>> users) {
    Set<String> values = new TreeSet<>();
    for (Map<String, Object> user : users) {
      collect(user.get("user"), values);
    }
    return of(values);
  }

  /**
   * This redactor, also masking the values of the Secret {@code secret} (a manifest): each
   * {@code data} value as sent and decoded, each {@code stringData} value as sent and encoded,
   * and the strings inside values that are JSON (a {@code .dockerconfigjson}'s password and
   * auth). For errors about that Secret: an admission policy or webhook may quote it in any form.
   */
  public Redactor withSecretValues(Map<String, Object> secret) {
    Set<String> values = new TreeSet<>(secrets);
    JsonTree.map(secret, "data").values().forEach(value -> {
      String encoded = String.valueOf(value);
      values.add(encoded);
      try {
        addDecoded(new String(Base64.getMimeDecoder().decode(encoded), StandardCharsets.UTF_8),
            values);
      } catch (IllegalArgumentException notBase64) {
        // the server will refuse it; the value as sent is masked
      }
    });
    JsonTree.map(secret, "stringData").values().forEach(value -> {
      String plain = String.valueOf(value);
      values.add(Base64.getEncoder().encodeToString(plain.getBytes(StandardCharsets.UTF_8)));
      addDecoded(plain, values);
    });
    return of(values);
  }

  private static void addDecoded(String plain, Set<String> into) {
    into.add(plain);
    // A tree in the value is quoted leaf by leaf as often as whole.
    collect(JsonTree.parseObject(plain), into);
  }

  /** {@code text} with every known secret masked. */
  public String redact(String text) {
    if (text == null || text.isEmpty()) {
      return text;
    }
    String result = text;
    for (String secret : secrets) {
      result = result.replace(secret, MASK);
    }
    result = BEARER.matcher(result).replaceAll("$1" + MASK);
    return URL_PASSWORD.matcher(result).replaceAll("$1" + MASK + "@");
  }

  private static void collect(Object value, Set<String> into) {
    if (value instanceof String s) {
      into.add(s);
    } else if (value instanceof Map<?, ?> map) {
      map.forEach((key, v) -> {
        if (!NOT_SECRET.contains(String.valueOf(key))) {
          collect(v, into);
        }
      });
    } else if (value instanceof List<?> list) {
      list.forEach(v -> collect(v, into));
    }
  }
}
