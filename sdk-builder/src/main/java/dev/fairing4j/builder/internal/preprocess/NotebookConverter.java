package dev.fairing4j.builder.internal.preprocess;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.fairing4j.builder.NotebookScript.Kind;
import dev.fairing4j.builder.NotebookScript.Removal;
import dev.fairing4j.builder.NotebookScript;
import dev.fairing4j.builder.internal.Json;
import dev.fairing4j.core.InvalidInputException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Reads a Jupyter notebook (nbformat 4) with Jackson and turns its code cells into one script.
 * IPython syntax that plain Python cannot run is taken out and reported: {@code %%} cell magics
 * drop their whole cell, {@code %} line magics and {@code !} shell escapes become {@code pass}
 * (so an indented block stays valid and line numbers inside the cell stay the same). Cells tagged
 * {@code skip} are left out.
 */
public final class NotebookConverter {
  /** The cell tag that leaves a cell out of the script. */
  public static final String SKIP_TAG = "skip";

  // "files = !ls" or "out = %sx ls": IPython captures a command's output into a variable.
  private static final Pattern CAPTURE = Pattern.compile("^[\\w.,\\s\\[\\]()]+=\\s*[!%].*");

  private NotebookConverter() {}

  /**
   * Parses {@code notebook}; malformed JSON fails with an {@link InvalidInputException} naming the
   * file and the line and column.
   */
  public static JsonNode read(Path notebook) {
    try {
      JsonNode root = Json.MAPPER.readTree(notebook.toFile());
      if (root == null || !root.isObject()) {
        throw notNotebook(notebook, "its top level is not a JSON object");
      }
      if (!root.path("cells").isArray()) {
        if (root.has("worksheets")) {
          throw InvalidInputException.of("notebook", "'" + notebook + "' is in the old nbformat 3",
              "convert it: jupyter nbconvert --to notebook --nbformat 4 " + notebook.getFileName());
        }
        throw notNotebook(notebook, "it has no \"cells\" array");
      }
      return root;
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      String where = at == null ? ""
          : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
      throw InvalidInputException.of("notebook", "'" + notebook + "' is not valid JSON" + where
          + ": " + firstLine(e.getOriginalMessage()), "repair the JSON" + where
          + ", or open the notebook in Jupyter and save it again", e);
    } catch (IOException e) {
      throw InvalidInputException.of("notebook", "'" + notebook + "' cannot be read: "
          + e.getMessage(), "check the path and its permissions", e);
    }
  }

  /** Converts the code cells of {@code notebook} (already checked with {@link #read}). */
  public static NotebookScript convert(Path notebook, JsonNode root) {
    StringBuilder script = new StringBuilder();
    script.append("# Converted from ").append(notebook.getFileName())
        .append(" by fairing4j: its code cells in order. IPython magics and shell escapes\n")
        .append("# became 'pass'; '# --- cell N ---' marks where notebook cell N starts.\n");
    List<Removal> removed = new ArrayList<>();
    List<Integer> skipped = new ArrayList<>();
    JsonNode cells = root.get("cells");
    for (int index = 0; index < cells.size(); index++) {
      int number = index + 1;
      JsonNode cell = cells.get(index);
      if (!cell.isObject() || !"code".equals(cell.path("cell_type").asText())) {
        continue;
      }
      List<String> lines = sourceLines(notebook, number, cell.get("source"));
      if (hasTag(cell, SKIP_TAG)) {
        skipped.add(number);
        script.append("\n# --- cell ").append(number).append(": skipped (tag '")
            .append(SKIP_TAG).append("') ---\n");
        continue;
      }
      if (lines.stream().allMatch(String::isBlank)) {
        continue;
      }
      int firstLine = 0;
      while (lines.get(firstLine).isBlank()) {
        firstLine++;
      }
      String first = lines.get(firstLine).strip();
      if (first.startsWith("%%")) {
        removed.add(new Removal(number, firstLine + 1, first, Kind.CELL_MAGIC));
        script.append("\n# --- cell ").append(number).append(": left out, ")
            .append(first.split("\\s+")[0]).append(" cell magic ---\n");
        continue;
      }
      script.append("\n# --- cell ").append(number).append(" ---\n");
      appendCode(script, lines, number, removed);
    }
    return new NotebookScript(script.toString(), removed, skipped);
  }

  private static void appendCode(StringBuilder script, List<String> lines, int cell,
      List<Removal> removed) {
    StringQuotes quotes = new StringQuotes();
    boolean continuing = false;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      String stripped = line.strip();
      Kind kind = continuing ? removed.get(removed.size() - 1).kind() : null;
      if (kind == null && !quotes.inside()) {
        if (stripped.startsWith("!")) {
          kind = Kind.SHELL_ESCAPE;
        } else if (stripped.startsWith("%")) {
          kind = Kind.LINE_MAGIC;
        } else if (CAPTURE.matcher(stripped).matches()) {
          kind = stripped.matches("[^=]*=\\s*!.*") ? Kind.SHELL_ESCAPE : Kind.LINE_MAGIC;
        }
      }
      if (kind != null) {
        if (!continuing) {
          removed.add(new Removal(cell, i + 1, stripped, kind));
        }
        String indent = line.substring(0, line.length() - line.stripLeading().length());
        // A trailing backslash continues the magic on the next line, which must go too.
        script.append(continuing ? indent + "#" : indent + "pass")
            .append("  # fairing4j removed: ").append(stripped.replace("\r", "")).append('\n');
        continuing = stripped.endsWith("\\");
        continue;
      }
      quotes.scan(line);
      script.append(line).append('\n');
    }
  }

  private static List<String> sourceLines(Path notebook, int cell, JsonNode source) {
    String text;
    if (source == null || source.isNull()) {
      text = "";
    } else if (source.isTextual()) {
      text = source.asText();
    } else if (source.isArray()) {
      StringBuilder joined = new StringBuilder();
      source.forEach(part -> joined.append(part.asText()));
      text = joined.toString();
    } else {
      throw notNotebook(notebook, "cell " + cell + " has a \"source\" that is neither text nor a"
          + " list of lines");
    }
    List<String> lines = new ArrayList<>(List.of(text.split("\r?\n", -1)));
    while (!lines.isEmpty() && lines.get(lines.size() - 1).isBlank()) {
      lines.remove(lines.size() - 1);
    }
    return lines;
  }

  private static boolean hasTag(JsonNode cell, String tag) {
    for (JsonNode candidate : cell.path("metadata").path("tags")) {
      if (tag.equals(candidate.asText())) {
        return true;
      }
    }
    return false;
  }

  private static InvalidInputException notNotebook(Path notebook, String problem) {
    return InvalidInputException.of("notebook", "'" + notebook + "' is not a Jupyter notebook: "
        + problem, "give an .ipynb file saved by Jupyter (nbformat 4)");
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "malformed";
    }
    int newline = message.indexOf('\n');
    String line = newline < 0 ? message : message.substring(0, newline);
    // Jackson names where an unclosed array or object began inside its own source description
    // ("[Source: REDACTED (`StreamReadFeature...` disabled); line: 1, column: 11]"): keep the place.
    return START_MARKER.matcher(line).replaceAll("(opened at line $1, column $2)");
  }

  private static final java.util.regex.Pattern START_MARKER = java.util.regex.Pattern.compile(
      "\\(start marker at \\[Source: [^\\]]*?line: (\\d+), column: (\\d+)\\]\\)");

  /**
   * Tracks whether a line starts inside a triple-quoted string, so a {@code %} or {@code !} at the
   * start of a line in a docstring or template is kept.
   */
  private static final class StringQuotes {
    private String open;

    boolean inside() {
      return open != null;
    }

    void scan(String line) {
      int at = 0;
      while (at < line.length()) {
        if (open == null) {
          int hash = line.indexOf('#', at);
          int dq = line.indexOf("\"\"\"", at);
          int sq = line.indexOf("'''", at);
          int next = min(dq, sq);
          if (next < 0 || (hash >= 0 && hash < next)) {
            return;
          }
          open = next == dq ? "\"\"\"" : "'''";
          at = next + 3;
        } else {
          int close = line.indexOf(open, at);
          if (close < 0) {
            return;
          }
          open = null;
          at = close + 3;
        }
      }
    }

    private static int min(int a, int b) {
      if (a < 0) {
        return b;
      }
      return b < 0 ? a : Math.min(a, b);
    }
  }
}
