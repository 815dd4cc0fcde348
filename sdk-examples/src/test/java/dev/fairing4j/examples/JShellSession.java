package dev.fairing4j.examples;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import jdk.jshell.EvalException;
import jdk.jshell.JShell;
import jdk.jshell.Snippet;
import jdk.jshell.SnippetEvent;
import jdk.jshell.SourceCodeAnalysis;
import org.opentest4j.AssertionFailedError;

/**
 * Runs JShell source the way the {@code jshell} tool and a JShell-based notebook kernel do, through
 * the {@code jdk.jshell} API with the test class path, and fails the test at the first snippet that
 * does not compile or throws, with its diagnostics.
 *
 * <p>The snippets run in JShell's default remote execution engine, a second JVM as in the
 * {@code jshell} tool: the {@code local} engine stops every thread a snippet started once the
 * snippet returns, which would silently end the local cluster's job supervisors.
 * {@link #runScript} feeds a {@code .jsh} file line by line, ending a snippet as soon as a line
 * completes it, as the tool does; {@link #run} takes a whole notebook cell, as a kernel does.
 */
final class JShellSession implements AutoCloseable {
  private final JShell shell;
  private final ByteArrayOutputStream output = new ByteArrayOutputStream();
  private final List<String> skipped = new ArrayList<>();

  JShellSession() {
    PrintStream out = new PrintStream(output, true, StandardCharsets.UTF_8);
    shell = JShell.builder().out(out).err(out).build();
    // Surefire and Failsafe start the JVM with a manifest-only jar; the real entries are here.
    String classPath = System.getProperty("surefire.test.class.path",
        System.getProperty("java.class.path"));
    for (String entry : classPath.split(File.pathSeparator)) {
      if (!entry.isBlank()) {
        shell.addToClasspath(entry);
      }
    }
  }

  /**
   * Evaluates a {@code .jsh} script as the {@code jshell} tool does: lines are added one at a time
   * and a snippet is evaluated as soon as the lines so far form a complete one.
   */
  void runScript(String script) {
    StringBuilder pending = new StringBuilder();
    SourceCodeAnalysis analysis = shell.sourceCodeAnalysis();
    for (String line : script.split("\n", -1)) {
      if (pending.length() == 0 && isCommand(line.strip())) {
        skipped.add(line.strip());
        continue;
      }
      pending.append(line).append('\n');
      SourceCodeAnalysis.CompletionInfo info = analysis.analyzeCompletion(pending.toString());
      if (info.completeness() == SourceCodeAnalysis.Completeness.EMPTY) {
        pending.setLength(0);
      } else if (info.completeness().isComplete()) {
        eval(info.source());
        pending.setLength(0);
        pending.append(info.remaining());
      }
    }
    if (!pending.toString().isBlank()) {
      throw new AssertionFailedError("the script ends inside a snippet: " + pending);
    }
  }

  /** Evaluates every snippet of {@code source}, as a kernel runs a cell; the last one's value. */
  String run(String source) {
    String value = null;
    String remaining = source;
    SourceCodeAnalysis analysis = shell.sourceCodeAnalysis();
    while (!remaining.isBlank()) {
      String trimmed = remaining.stripLeading();
      // JShell commands (/exit, /open) and notebook magics (%maven) are not Java.
      if (isCommand(trimmed)) {
        int end = trimmed.indexOf('\n');
        skipped.add((end < 0 ? trimmed : trimmed.substring(0, end)).strip());
        remaining = end < 0 ? "" : trimmed.substring(end + 1);
        continue;
      }
      SourceCodeAnalysis.CompletionInfo info = analysis.analyzeCompletion(remaining);
      if (info.completeness() == SourceCodeAnalysis.Completeness.EMPTY) {
        break;
      }
      if (!info.completeness().isComplete()) {
        throw new AssertionFailedError("incomplete snippet: " + remaining);
      }
      value = eval(info.source());
      remaining = info.remaining();
    }
    return value;
  }

  private static boolean isCommand(String text) {
    return text.startsWith("/") && !text.startsWith("//") && !text.startsWith("/*")
        || text.startsWith("%");
  }

  /** The lines skipped as JShell commands or notebook magics. */
  List<String> skipped() {
    return skipped;
  }

  /** What the snippets printed (the remote JVM's standard output and error). */
  String output() {
    return output.toString(StandardCharsets.UTF_8);
  }

  private String eval(String snippet) {
    String value = null;
    for (SnippetEvent event : shell.eval(snippet)) {
      if (event.exception() != null) {
        Throwable thrown = event.exception();
        String type = thrown instanceof EvalException eval ? eval.getExceptionClassName()
            : thrown.getClass().getName();
        AssertionFailedError failure = new AssertionFailedError("snippet threw " + type + ": "
            + thrown.getMessage() + "\n" + snippet);
        failure.initCause(thrown);
        throw failure;
      }
      if (event.status() == Snippet.Status.REJECTED) {
        String diagnostics = shell.diagnostics(event.snippet())
            .map(d -> d.getMessage(null)).collect(Collectors.joining("\n"));
        throw new AssertionFailedError("snippet rejected: " + diagnostics + "\n" + snippet);
      }
      if (event.causeSnippet() == null) {
        value = event.value();
      }
    }
    return value;
  }

  @Override
  public void close() {
    shell.close();
  }
}
