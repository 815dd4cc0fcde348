package dev.fairing4j.builder.internal.dockerfile;

import java.util.List;
import java.util.Locale;

/**
 * One instruction of a Dockerfile, as written: its keyword in upper case, its arguments with line
 * continuations joined, the line it starts on, and the bodies of any here-documents it opens
 * ({@code COPY <<EOF /app/x}).
 *
 * @param keyword {@code FROM}, {@code COPY}, ... in upper case
 * @param arguments everything after the keyword, continuations joined
 * @param line the 1-based line the instruction starts on
 * @param heredocs the bodies of its here-documents, in order
 */
public record Instruction(String keyword, String arguments, int line, List<String> heredocs) {
  /** Copies the list. */
  public Instruction {
    keyword = keyword.toUpperCase(Locale.ROOT);
    heredocs = List.copyOf(heredocs);
  }

  /** The instruction as a message shows it: {@code line 4: RUN pip install ...}, shortened. */
  public String describe() {
    String text = keyword + (arguments.isEmpty() ? "" : " " + arguments);
    if (text.length() > 80) {
      text = text.substring(0, 77) + "...";
    }
    return "line " + line + ": " + text;
  }
}
