package dev.fairing4j.core.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * Aligned plain-text and HTML tables for the values users look at in a terminal, JShell or a
 * notebook. Columns are as wide as their widest cell; HTML cells are escaped.
 */
public final class TextTable {
  private final List<String> header;
  private final List<List<String>> rows = new ArrayList<>();

  private TextTable(List<String> header) {
    this.header = List.copyOf(header);
  }

  /** {@code rows} under {@code header} as aligned text, as {@link #toText()}. */
  public static String text(List<String> header, List<List<String>> rows) {
    return of(header, rows).toText();
  }

  /** {@code rows} under {@code header} as an HTML table, as {@link #toHtml()}. */
  public static String html(List<String> header, List<List<String>> rows) {
    return of(header, rows).toHtml();
  }

  private static TextTable of(List<String> header, List<List<String>> rows) {
    TextTable table = new TextTable(header);
    rows.forEach(row -> table.row(row.toArray(String[]::new)));
    return table;
  }

  /** A table with these column titles. */
  public static TextTable of(String... header) {
    return new TextTable(List.of(header));
  }

  /** Adds a row; missing cells are blank, extra cells are an error. */
  public TextTable row(String... cells) {
    if (cells.length > header.size()) {
      throw new IllegalArgumentException("row has " + cells.length + " cells, table has "
          + header.size() + " columns");
    }
    List<String> row = new ArrayList<>();
    for (int i = 0; i < header.size(); i++) {
      row.add(i < cells.length && cells[i] != null ? cells[i] : "");
    }
    rows.add(row);
    return this;
  }

  /** True when no row was added. */
  public boolean isEmpty() {
    return rows.isEmpty();
  }

  /** Columns separated by two spaces, no trailing blanks, lines joined with '\n'. */
  public String toText() {
    int[] widths = new int[header.size()];
    for (int i = 0; i < widths.length; i++) {
      widths[i] = header.get(i).length();
      for (List<String> row : rows) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    StringBuilder text = new StringBuilder();
    line(text, header, widths);
    for (List<String> row : rows) {
      text.append('\n');
      line(text, row, widths);
    }
    return text.toString();
  }

  /** A {@code <table>} with a header row. */
  public String toHtml() {
    StringBuilder html = new StringBuilder("<table><thead><tr>");
    header.forEach(h -> html.append("<th>").append(escape(h)).append("</th>"));
    html.append("</tr></thead><tbody>");
    for (List<String> row : rows) {
      html.append("<tr>");
      row.forEach(cell -> html.append("<td>").append(escape(cell)).append("</td>"));
      html.append("</tr>");
    }
    return html.append("</tbody></table>").toString();
  }

  private static void line(StringBuilder text, List<String> cells, int[] widths) {
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < cells.size(); i++) {
      if (i > 0) {
        line.append("  ");
      }
      line.append(cells.get(i));
      if (i < cells.size() - 1) {
        line.append(" ".repeat(widths[i] - cells.get(i).length()));
      }
    }
    text.append(line.toString().stripTrailing());
  }

  /** Escapes the HTML special characters. */
  public static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace("\"", "&quot;").replace("'", "&#39;");
  }
}
