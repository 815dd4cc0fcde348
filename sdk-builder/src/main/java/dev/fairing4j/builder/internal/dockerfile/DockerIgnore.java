package dev.fairing4j.builder.internal.dockerfile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The rules of a {@code .dockerignore} file: one pattern per line ({@link PathPattern}),
 * {@code #} comments, {@code !} for an exception; the last rule that matches a path decides. A
 * pattern also excludes everything under a directory it matches.
 */
final class DockerIgnore {
  /** No rules: nothing is excluded. */
  static final DockerIgnore NONE = new DockerIgnore(List.of());

  private record Rule(PathPattern pattern, boolean exception) {}

  private final List<Rule> rules;

  private DockerIgnore(List<Rule> rules) {
    this.rules = List.copyOf(rules);
  }

  /** The rules in {@code text}. */
  static DockerIgnore parse(String text) {
    List<Rule> rules = new ArrayList<>();
    for (String raw : text.split("\r?\n")) {
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      boolean exception = line.startsWith("!");
      String pattern = (exception ? line.substring(1) : line).strip();
      if (!pattern.isEmpty()) {
        rules.add(new Rule(PathPattern.of(pattern), exception));
      }
    }
    return new DockerIgnore(rules);
  }

  /** The rules of {@code directory}'s {@code .dockerignore}, or none when it has none. */
  static DockerIgnore in(Path directory) {
    Path file = directory.resolve(".dockerignore");
    if (!Files.isRegularFile(file)) {
      return NONE;
    }
    try {
      return parse(Files.readString(file, StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Whether {@code path} (relative to the context root) is left out of the context. */
  boolean excludes(String path) {
    boolean excluded = false;
    for (Rule rule : rules) {
      if (rule.pattern().matchesOrParent(path)) {
        excluded = !rule.exception();
      }
    }
    return excluded;
  }

  /** Whether there are no rules. */
  boolean isEmpty() {
    return rules.isEmpty();
  }
}
