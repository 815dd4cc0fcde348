package dev.fairing4j.deployer.tuning;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks, before any trial runs, that the metrics collector can read the objective as the
 * training code prints it: the string literals of the context's Python files that name the
 * metric are turned into the lines they would print (placeholders of {@code str.format},
 * f-strings and {@code %} formatting filled with a number, a number appended where a print's
 * next argument would follow) and read through the collector's filters. What
 * {@link Experiment#dryRun()} says comes from here.
 */
final class MetricForms {
  // Triple-quoted strings first; a single-quoted one ends at its line.
  private static final Pattern LITERAL = Pattern.compile("\"\"\"(.*?)\"\"\"|'''(.*?)'''"
      + "|\"((?:\\\\.|[^\"\\\\\\n])*)\"|'((?:\\\\.|[^'\\\\\\n])*)'", Pattern.DOTALL);
  private static final Pattern PERCENT = Pattern.compile(
      "%(?:\\([^)]*\\))?[-+ 0#]*\\d*(?:\\.\\d+)?[diouxXeEfFgGsr]");
  private static final String SAMPLE = "0.5";

  private MetricForms() {}

  /** A string of the code that names the metric, and the line it would print. */
  record Form(String file, int line, String literal, String printed) {}

  /**
   * The comment lines for {@link Experiment#dryRun()}: a warning naming each place that prints
   * {@code metric} in a form {@code collector} does not read, when none of them is read; a note
   * when no string of the code names the metric; nothing when a form is read.
   */
  static String check(String metric, MetricsCollector collector, BuildContext context) {
    List<Form> forms = find(metric, context);
    if (forms.isEmpty()) {
      return "# NOTE: no string in the training code names " + metric + "; the metrics"
          + " collector (" + collector + ") reads lines that contain it, e.g. " + metric
          + "=0.91\n";
    }
    List<Form> unread = new ArrayList<>();
    for (Form form : forms) {
      if (!collector.values(metric, List.of(form.printed())).isEmpty()) {
        return "";
      }
      unread.add(form);
    }
    StringBuilder text = new StringBuilder("# WARNING: the metrics collector (" + collector
        + ") cannot read " + metric + " as the training code prints it, so every trial would"
        + " end without it:\n");
    for (Form form : unread.subList(0, Math.min(3, unread.size()))) {
      text.append("#   ").append(form.file()).append(':').append(form.line()).append(" prints '")
          .append(form.printed().strip()).append("'\n");
    }
    text.append("# fix: print ").append(metric).append("=<value> (or {metricName: ")
        .append(metric).append(", metricValue: <value>}), or read that form with")
        .append(" .metricsCollector(MetricsCollector.stdOut().filters(\"")
        .append(suggestedFilter(metric, unread.get(0).printed()).replace("\\", "\\\\")
            .replace("\"", "\\\""))
        .append("\"))\n");
    return text.toString();
  }

  /** Every string literal of the context's own Python files that names {@code metric}. */
  static List<Form> find(String metric, BuildContext context) {
    List<Form> forms = new ArrayList<>();
    for (Map.Entry<String, ContextFile> file : context.files().entrySet()) {
      String path = file.getKey();
      if (!path.endsWith(".py") || path.contains("/.fairing4j/")) {
        continue;
      }
      String source = new String(file.getValue().bytes(), StandardCharsets.UTF_8);
      Matcher literal = LITERAL.matcher(source);
      while (literal.find()) {
        String body = literal.group(1) != null ? literal.group(1) : literal.group(2) != null
            ? literal.group(2) : literal.group(3) != null ? literal.group(3) : literal.group(4);
        if (!body.contains(metric)) {
          continue;
        }
        int line = 1 + (int) source.substring(0, literal.start()).chars()
            .filter(c -> c == '\n').count();
        forms.add(new Form(path, line, body, printed(body, metric)));
      }
    }
    return forms;
  }

  /** The line a literal prints: placeholders filled, a value appended after a label. */
  static String printed(String body, String metric) {
    String text = formatted(body.replace("\\n", "\n").replace("\\t", "\t"));
    text = PERCENT.matcher(text.replace("%%", "\u0003")).replaceAll(SAMPLE)
        .replace("\u0003", "%");
    String first = text.lines().filter(l -> l.contains(metric)).findFirst().orElse(text);
    String end = first.stripTrailing();
    if (end.endsWith(metric) || end.endsWith(":")) {
      return end + " " + SAMPLE;  // print("accuracy:", acc) joins its arguments with a blank
    }
    if (end.endsWith("=")) {
      return end + SAMPLE;  // "accuracy=" + str(acc)
    }
    return first;
  }

  /**
   * {@code text} as {@code str.format} or an f-string prints it: {@code {{} and {@code }}} are
   * braces, a replacement field ({@code {acc:.4f}}, nested fields in its spec included) a number.
   */
  private static String formatted(String text) {
    StringBuilder out = new StringBuilder();
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if ((c == '{' || c == '}') && i + 1 < text.length() && text.charAt(i + 1) == c) {
        out.append(c);
        i += 2;
      } else if (c == '{') {
        int depth = 1;
        int j = i + 1;
        while (j < text.length() && depth > 0) {
          depth += text.charAt(j) == '{' ? 1 : text.charAt(j) == '}' ? -1 : 0;
          j++;
        }
        if (depth > 0) {
          out.append(text, i, text.length());  // not a field: an unclosed brace
          break;
        }
        out.append(SAMPLE);
        i = j;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  /** A filter in Go's syntax that reads {@code printed}'s value of {@code metric}. */
  static String suggestedFilter(String metric, String printed) {
    int at = printed.indexOf(metric);
    String after = printed.substring(at + metric.length());
    int number = after.indexOf(SAMPLE);
    String between = number < 0 ? "\\s*[:=]\\s*" : quote(after.substring(0, number));
    return "(" + quote(metric) + ")" + between + "([+-]?\\d*(\\.\\d+)?([Ee][+-]?\\d+)?)";
  }

  private static String quote(String text) {
    StringBuilder quoted = new StringBuilder();
    for (char c : text.toCharArray()) {
      if ("\\.+*?()|[]{}^$".indexOf(c) >= 0) {
        quoted.append('\\');
      }
      quoted.append(c);
    }
    return quoted.toString().replace(" ", "\\s*").replace("\t", "\\s*");
  }
}
