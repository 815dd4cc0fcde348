package dev.fairing4j.builder.internal.dockerfile;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The word processing BuildKit applies to the arguments of {@code FROM}, {@code COPY},
 * {@code ADD}, {@code ENV}, {@code LABEL}, {@code ARG}, {@code WORKDIR}, {@code USER},
 * {@code EXPOSE} and {@code VOLUME}: single and double quotes, the escape character, and
 * variables ({@code $NAME}, {@code ${NAME}}, {@code ${NAME:-default}}, {@code ${NAME-default}},
 * {@code ${NAME:+alternative}}, {@code ${NAME+alternative}}, {@code ${NAME:?message}}) from the
 * build arguments and environment declared so far. An unset variable is empty, as in Docker.
 */
final class ShellWords {
  private final char escape;
  private final Function<String, String> variables;
  private final int line;

  /**
   * @param escape the Dockerfile's escape character
   * @param variables the value of each variable in scope, null for one not set
   * @param line the instruction's line, for errors
   */
  ShellWords(char escape, Function<String, String> variables, int line) {
    this.escape = escape;
    this.variables = variables;
    this.line = line;
  }

  /** {@code text} as one word: quotes removed, variables expanded, whitespace kept. */
  String word(String text) {
    List<String> words = lex(text, false);
    return words.isEmpty() ? "" : words.get(0);
  }

  /** {@code text} split at unquoted whitespace, each word processed as by {@link #word}. */
  List<String> words(String text) {
    return lex(text, true);
  }

  /**
   * {@code text} split at unquoted whitespace with quotes and escapes kept, for the
   * {@code key=value} pairs of {@code ENV} and {@code LABEL}, whose values are processed after.
   */
  static List<String> rawWords(String text, char escape) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    char quote = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (quote == 0 && Character.isWhitespace(c)) {
        if (word.length() > 0) {
          words.add(word.toString());
          word.setLength(0);
        }
        continue;
      }
      word.append(c);
      if (c == escape && quote != '\'' && i + 1 < text.length()) {
        word.append(text.charAt(++i));
      } else if (quote == 0 && (c == '"' || c == '\'')) {
        quote = c;
      } else if (c == quote) {
        quote = 0;
      }
    }
    if (word.length() > 0) {
      words.add(word.toString());
    }
    return words;
  }

  private List<String> lex(String text, boolean split) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    boolean started = false;
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (split && Character.isWhitespace(c)) {
        if (started) {
          words.add(word.toString());
          word.setLength(0);
          started = false;
        }
        i++;
        continue;
      }
      started = true;
      if (c == escape) {
        if (i + 1 < text.length()) {
          word.append(text.charAt(i + 1));
          i += 2;
        } else {
          word.append(c);
          i++;
        }
      } else if (c == '\'') {
        int end = text.indexOf('\'', i + 1);
        if (end < 0) {
          throw new DockerfileException(line, "a single quote is never closed in '" + text
              + "'", "close the quote");
        }
        word.append(text, i + 1, end);
        i = end + 1;
      } else if (c == '"') {
        i = doubleQuoted(text, i + 1, word);
      } else if (c == '$') {
        i = variable(text, i, word);
      } else {
        word.append(c);
        i++;
      }
    }
    if (started) {
      words.add(word.toString());
    }
    return words;
  }

  /** Appends the double-quoted text starting at {@code from}; returns the index after it. */
  private int doubleQuoted(String text, int from, StringBuilder word) {
    int i = from;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (c == '"') {
        return i + 1;
      }
      if (c == escape && i + 1 < text.length()) {
        char next = text.charAt(i + 1);
        if (next == '"' || next == '$' || next == escape) {
          word.append(next);
        } else {
          word.append(c).append(next);
        }
        i += 2;
      } else if (c == '$') {
        i = variable(text, i, word);
      } else {
        word.append(c);
        i++;
      }
    }
    throw new DockerfileException(line, "a double quote is never closed in '" + text + "'",
        "close the quote");
  }

  /** Appends the value of the variable at {@code at} (a {@code $}); returns the index after. */
  private int variable(String text, int at, StringBuilder word) {
    int i = at + 1;
    if (i < text.length() && text.charAt(i) == '{') {
      int close = matchingBrace(text, i);
      String inside = text.substring(i + 1, close);
      int nameEnd = 0;
      while (nameEnd < inside.length() && isNameChar(inside.charAt(nameEnd), nameEnd == 0)) {
        nameEnd++;
      }
      String name = inside.substring(0, nameEnd);
      if (name.isEmpty()) {
        throw new DockerfileException(line, "'${" + inside + "}' names no variable",
            "write ${NAME}, ${NAME:-default} or ${NAME:+alternative}");
      }
      String rest = inside.substring(nameEnd);
      String value = variables.apply(name);
      if (rest.isEmpty()) {
        word.append(value == null ? "" : value);
      } else if (rest.startsWith(":-") || rest.startsWith("-")) {
        boolean colon = rest.startsWith(":");
        String fallback = rest.substring(colon ? 2 : 1);
        boolean use = value == null || (colon && value.isEmpty());
        word.append(use ? new ShellWords(escape, variables, line).word(fallback) : value);
      } else if (rest.startsWith(":+") || rest.startsWith("+")) {
        boolean colon = rest.startsWith(":");
        String alternative = rest.substring(colon ? 2 : 1);
        boolean set = value != null && (!colon || !value.isEmpty());
        word.append(set ? new ShellWords(escape, variables, line).word(alternative) : "");
      } else if (rest.startsWith(":?") || rest.startsWith("?")) {
        boolean colon = rest.startsWith(":");
        if (value == null || (colon && value.isEmpty())) {
          String message = rest.substring(colon ? 2 : 1);
          throw new DockerfileException(line, "${" + inside + "}: " + (message.isEmpty()
              ? name + " is not set" : message), "pass it with .buildArg(\"" + name
              + "\", ...) or declare it with ARG or ENV before this line");
        }
        word.append(value);
      } else {
        throw new DockerfileException(line, "'${" + inside + "}' uses a form of substitution"
            + " this builder does not read", "use ${NAME}, ${NAME:-default},"
            + " ${NAME:+alternative} or ${NAME:?message}");
      }
      return close + 1;
    }
    int end = i;
    while (end < text.length() && isNameChar(text.charAt(end), end == i)) {
      end++;
    }
    if (end == i) {
      word.append('$');
      return i;
    }
    String value = variables.apply(text.substring(i, end));
    word.append(value == null ? "" : value);
    return end;
  }

  private int matchingBrace(String text, int open) {
    int depth = 0;
    for (int i = open; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '{') {
        depth++;
      } else if (c == '}' && --depth == 0) {
        return i;
      }
    }
    throw new DockerfileException(line, "'" + text.substring(open - 1) + "' is never closed",
        "close the variable with }");
  }

  private static boolean isNameChar(char c, boolean first) {
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
        || (!first && c >= '0' && c <= '9');
  }
}
