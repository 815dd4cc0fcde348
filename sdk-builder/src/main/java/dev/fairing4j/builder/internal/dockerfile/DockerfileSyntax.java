package dev.fairing4j.builder.internal.dockerfile;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a Dockerfile's text into instructions the way BuildKit's parser does: parser directives
 * at the top ({@code # escape=`}), comments, blank lines, line continuations with the escape
 * character (comment lines inside a continuation are dropped), keywords in any case, and
 * here-documents after {@code RUN}, {@code COPY} and {@code ADD}, whose bodies are not
 * instructions.
 *
 * @param escape the escape character, {@code \} unless a directive says {@code `}
 * @param instructions the instructions in order
 */
public record DockerfileSyntax(char escape, List<Instruction> instructions) {
  private static final Pattern DIRECTIVE =
      Pattern.compile("^#\\s*([a-zA-Z][a-zA-Z0-9_-]*)\\s*=\\s*(.*?)\\s*$");
  private static final Pattern HEREDOC =
      Pattern.compile("<<(-?)([\"']?)([A-Za-z_][A-Za-z0-9_]*)\\2");

  /** Copies the list. */
  public DockerfileSyntax {
    instructions = List.copyOf(instructions);
  }

  /**
   * Parses {@code text}.
   *
   * @throws DockerfileException for an escape directive other than {@code \} or {@code `}, a
   *     line that starts with no instruction keyword, or a here-document never closed
   */
  public static DockerfileSyntax parse(String text) {
    List<String> lines = List.of(text.replace("\r\n", "\n").split("\n", -1));
    char escape = '\\';
    int at = 0;
    // Directives come first; a blank line, a plain comment or an instruction ends them.
    while (at < lines.size()) {
      Matcher directive = DIRECTIVE.matcher(lines.get(at).strip());
      if (!directive.matches()) {
        break;
      }
      if (directive.group(1).equalsIgnoreCase("escape")) {
        String value = directive.group(2);
        if (!value.equals("\\") && !value.equals("`")) {
          throw new DockerfileException(at + 1, "the escape directive is '" + value + "'",
              "write # escape=\\ or # escape=` (the only two BuildKit accepts)");
        }
        escape = value.charAt(0);
      }
      at++;
    }
    List<Instruction> instructions = new ArrayList<>();
    while (at < lines.size()) {
      String first = lines.get(at);
      if (first.isBlank() || first.strip().startsWith("#")) {
        at++;
        continue;
      }
      int start = at + 1;
      StringBuilder logical = new StringBuilder();
      String current = first;
      while (true) {
        String trimmed = current.stripTrailing();
        at++;
        if (!trimmed.isEmpty() && trimmed.charAt(trimmed.length() - 1) == escape) {
          logical.append(trimmed, 0, trimmed.length() - 1);
          while (at < lines.size() && (lines.get(at).isBlank()
              || lines.get(at).strip().startsWith("#"))) {
            at++;
          }
          if (at >= lines.size()) {
            break;
          }
          current = lines.get(at);
          continue;
        }
        logical.append(trimmed);
        break;
      }
      String joined = logical.toString().strip();
      int space = firstSpace(joined);
      String keyword = space < 0 ? joined : joined.substring(0, space);
      String arguments = space < 0 ? "" : joined.substring(space).strip();
      if (!keyword.matches("[A-Za-z]+")) {
        throw new DockerfileException(start, "'" + shorten(joined) + "' starts with no"
            + " instruction", "start the line with an instruction such as FROM, COPY or CMD,"
            + " or end the line before with " + escape + " to continue it");
      }
      List<String> heredocs = new ArrayList<>();
      String upper = keyword.toUpperCase(Locale.ROOT);
      if (upper.equals("RUN") || upper.equals("COPY") || upper.equals("ADD")) {
        Matcher heredoc = HEREDOC.matcher(arguments);
        while (heredoc.find()) {
          boolean stripTabs = !heredoc.group(1).isEmpty();
          String word = heredoc.group(3);
          StringBuilder body = new StringBuilder();
          boolean closed = false;
          while (at < lines.size()) {
            String line = lines.get(at++);
            String candidate = stripTabs ? line.replaceFirst("^\t+", "") : line;
            if (candidate.equals(word)) {
              closed = true;
              break;
            }
            body.append(candidate).append('\n');
          }
          if (!closed) {
            throw new DockerfileException(start, "the here-document <<" + word
                + " is never closed", "end it with a line holding only " + word);
          }
          heredocs.add(body.toString());
        }
      }
      instructions.add(new Instruction(keyword, arguments, start, heredocs));
    }
    return new DockerfileSyntax(escape, instructions);
  }

  /** The first instruction with {@code keyword}, if any. */
  public Optional<Instruction> first(String keyword) {
    return instructions.stream().filter(i -> i.keyword().equals(keyword)).findFirst();
  }

  private static int firstSpace(String text) {
    for (int i = 0; i < text.length(); i++) {
      if (Character.isWhitespace(text.charAt(i))) {
        return i;
      }
    }
    return -1;
  }

  private static String shorten(String text) {
    return text.length() > 60 ? text.substring(0, 57) + "..." : text;
  }
}
