package dev.fairing4j.deploy.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * Renders rows as an aligned plain-text table (the {@code kubectl get} look, for terminals and
 * JShell) or as an HTML table (for notebooks, which render it instead of showing text).
 */
public final class TextTable {
  private TextTable() {}

  /** Columns padded to their widest cell, separated by three spaces; no trailing blanks. */
  public static String text(List<String> headers, List<List<String>> rows) {
    List<List<String>> all = new ArrayList<>();
    all.add(headers);
    all.addAll(rows);
    int[] widths = new int[headers.size()];
    for (List<String> row : all) {
      for (int i = 0; i < widths.length && i < row.size(); i++) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (List<String> row : all) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < widths.length; i++) {
        String cell = i < row.size() ? row.get(i) : "";
        line.append(cell);
        if (i < widths.length - 1) {
          line.append(" ".repeat(widths[i] - cell.length() + 3));
        }
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
    return out.toString();
  }

  /** An HTML table with a header row; every cell escaped. */
  public static String html(List<String> headers, List<List<String>> rows) {
    StringBuilder out = new StringBuilder("<table>\n<thead><tr>");
    headers.forEach(h -> out.append("<th>").append(escape(h)).append("</th>"));
    out.append("</tr></thead>\n<tbody>\n");
    for (List<String> row : rows) {
      out.append("<tr>");
      row.forEach(c -> out.append("<td>").append(escape(c)).append("</td>"));
      out.append("</tr>\n");
    }
    return out.append("</tbody>\n</table>").toString();
  }

  /** Escapes text for HTML element content and attribute values. */
  public static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace("\"", "&quot;").replace("'", "&#39;");
  }
}
