package dev.fairing4j.deployer.local.internal.plan;

import java.util.Map;

/**
 * Kubernetes' {@code $(VAR)} expansion in env values, command and args: a reference to a variable
 * defined earlier is replaced, an unknown one stays as written, and {@code $$} escapes a dollar.
 */
public final class EnvExpansion {
  private EnvExpansion() {}

  public static String expand(String text, Map<String, String> defined) {
    if (text.indexOf('$') < 0) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length());
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (c == '$' && i + 1 < text.length()) {
        char next = text.charAt(i + 1);
        if (next == '$') {
          out.append('$');
          i += 2;
          continue;
        }
        if (next == '(') {
          int close = text.indexOf(')', i + 2);
          if (close > 0) {
            String name = text.substring(i + 2, close);
            String value = defined.get(name);
            out.append(value != null ? value : text.substring(i, close + 1));
            i = close + 1;
            continue;
          }
        }
      }
      out.append(c);
      i++;
    }
    return out.toString();
  }
}
