package dev.fairing4j.builder;

import java.util.List;
import java.util.Objects;

/**
 * A notebook's code cells as one Python script, and what the conversion left out: IPython magics
 * and shell escapes (which plain Python cannot run) and cells tagged {@code skip}. Each kept cell
 * starts with a {@code # --- cell N ---} comment (N counts all cells from 1, as Jupyter shows
 * them), so a traceback line in the script maps back to its cell.
 *
 * @param script the Python source
 * @param removed the lines taken out, in notebook order
 * @param skippedCells the numbers of cells tagged {@code skip}
 */
public record NotebookScript(String script, List<Removal> removed, List<Integer> skippedCells) {

  /** Copies the lists. */
  public NotebookScript {
    Objects.requireNonNull(script, "script");
    removed = List.copyOf(removed);
    skippedCells = List.copyOf(skippedCells);
  }

  /** Why a line was taken out. */
  public enum Kind {
    /** A {@code %magic} line, e.g. {@code %matplotlib inline}. */
    LINE_MAGIC,
    /** A {@code %%magic} cell; the whole cell is left out. */
    CELL_MAGIC,
    /** A {@code !command} line or {@code x = !command}. */
    SHELL_ESCAPE
  }

  /**
   * One removed line: the cell number (from 1), the line within the cell (from 1), the text as
   * written and why it went.
   */
  public record Removal(int cell, int line, String text, Kind kind) {
    /** Checks the parts. */
    public Removal {
      Objects.requireNonNull(text, "text");
      Objects.requireNonNull(kind, "kind");
    }

    @Override
    public String toString() {
      return "cell " + cell + " line " + line + ": " + text;
    }
  }

  /** One line for a log or a progress note, e.g. {@code removed 2 lines (cell 1 line 1: ...)}. */
  public String summary() {
    StringBuilder text = new StringBuilder();
    if (!removed.isEmpty()) {
      text.append("removed ").append(removed.size())
          .append(removed.size() == 1 ? " line" : " lines")
          .append(" that plain Python cannot run: ").append(removed);
    }
    if (!skippedCells.isEmpty()) {
      text.append(text.length() > 0 ? "; " : "").append("skipped cells tagged 'skip': ")
          .append(skippedCells);
    }
    return text.length() == 0 ? "nothing removed" : text.toString();
  }
}
