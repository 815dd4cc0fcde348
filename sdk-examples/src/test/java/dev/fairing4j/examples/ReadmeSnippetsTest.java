package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java snippets of README.md and of every guide in docs/ are what a user copies first, so each
 * one is compiled against the SDK as it is now: a renamed or removed method fails here rather
 * than in a user's notebook. The snippets that run on {@code Clusters.local()} are also run, pasted
 * into jshell (DocumentedSnippetsIT), and the README's first one from the released jars
 * (ReleaseIT); those that submit to a cluster run as dry runs (DocumentedDryRunsIT). The
 * examples, the notebooks and the JShell scripts run in their own ITs.
 */
class ReadmeSnippetsTest {
  private static final Pattern JAVA_BLOCK = Pattern.compile("```java\\n(.*?)```", Pattern.DOTALL);
  private static final Pattern IMPORT = Pattern.compile("\\bimport\\s+[\\w.]+(\\.\\*)?;");
  /** What a snippet may use without importing it: the SDK's user-facing packages and the JDK's. */
  private static final String IMPORTS = String.join("\n",
      "import dev.fairing4j.core.*;",
      "import dev.fairing4j.builder.*;",
      "import dev.fairing4j.deployer.*;",
      "import dev.fairing4j.deployer.batch.*;",
      "import dev.fairing4j.deployer.job.*;",
      "import dev.fairing4j.deployer.kubeflow.*;",
      "import dev.fairing4j.deployer.kubernetes.*;",
      "import dev.fairing4j.deployer.local.*;",
      "import dev.fairing4j.deployer.monitor.*;",
      "import dev.fairing4j.deployer.serving.*;",
      "import dev.fairing4j.deployer.storage.*;",
      "import dev.fairing4j.deployer.trainer.*;",
      "import dev.fairing4j.deployer.tuning.*;",
      "import java.nio.file.*;",
      "import java.time.*;",
      "import java.util.*;");

  @TempDir
  Path classes;

  @Test
  void everyJavaSnippetInTheReadmeAndTheGuidesCompilesAgainstTheSdk() throws IOException {
    Map<String, List<String>> documents = documents();
    assertThat(documents.get("README.md")).as("java blocks in the README")
        .hasSizeGreaterThanOrEqualTo(2);
    assertThat(documents.values().stream().mapToInt(List::size).sum())
        .as("java blocks in README.md and docs/").isGreaterThanOrEqualTo(12);
    int index = 0;
    for (Map.Entry<String, List<String>> document : documents.entrySet()) {
      List<String> snippets = document.getValue();
      for (int i = 0; i < snippets.size(); i++) {
        assertThat(errors(index++, snippets.get(i))).as("%s, java block %d:%n%s",
            document.getKey(), i + 1, snippets.get(i)).isEmpty();
      }
    }
  }

  /** The java blocks of README.md and of each docs/*.md, by the file's path. */
  static Map<String, List<String>> documents() throws IOException {
    Map<String, List<String>> documents = new TreeMap<>();
    documents.put("README.md", snippets(Files.readString(Path.of("..", "README.md"),
        StandardCharsets.UTF_8)));
    try (Stream<Path> guides = Files.list(Path.of("..", "docs"))) {
      for (Path guide : guides.filter(p -> p.toString().endsWith(".md")).sorted().toList()) {
        documents.put("docs/" + guide.getFileName(), snippets(Files.readString(guide,
            StandardCharsets.UTF_8)));
      }
    }
    return documents;
  }

  /**
   * The jshell tool runs a line as soon as it completes a statement: a chain continued by a line
   * that starts with a dot becomes two statements, the second an error. Every block is fed to
   * JShell's own completeness analysis line by line, as pasting does, and no statement may start
   * with a dot.
   */
  @Test
  void everyJavaSnippetPastesIntoJShellLineByLine() throws IOException {
    try (jdk.jshell.JShell shell = jdk.jshell.JShell.create()) {
      jdk.jshell.SourceCodeAnalysis analysis = shell.sourceCodeAnalysis();
      for (Map.Entry<String, List<String>> document : documents().entrySet()) {
        List<String> snippets = document.getValue();
        for (int i = 0; i < snippets.size(); i++) {
          assertThat(pasted(analysis, snippets.get(i))).as("%s, java block %d, pasted into"
              + " jshell line by line", document.getKey(), i + 1)
              .noneMatch(s -> s.strip().startsWith("."));
        }
      }
      assertThat(pasted(analysis, "var p = Fairing.pipeline()\n    .preprocessor(x);\n"))
          .as("the check itself").anyMatch(s -> s.strip().startsWith("."));
    }
  }

  /** The statements jshell would run when {@code block} is pasted into it line by line. */
  static List<String> pasted(jdk.jshell.SourceCodeAnalysis analysis, String block) {
    List<String> statements = new ArrayList<>();
    StringBuilder pending = new StringBuilder();
    for (String line : block.split("\n", -1)) {
      pending.append(line).append('\n');
      String input = pending.toString();
      while (!input.isBlank()) {
        jdk.jshell.SourceCodeAnalysis.CompletionInfo info = analysis.analyzeCompletion(input);
        if (!info.completeness().isComplete()) {
          break;
        }
        if (info.completeness() != jdk.jshell.SourceCodeAnalysis.Completeness.EMPTY) {
          statements.add(info.source());
        }
        input = info.remaining();
      }
      pending = new StringBuilder(input);
    }
    return statements;
  }

  @Test
  void aSnippetCallingWhatTheSdkNoLongerHasFails() {
    // The check itself: the factory renamed in Step 12 must not compile.
    assertThat(errors(0, "Deployers.job(\"mnist\").replicas(2);"))
        .anySatisfy(e -> assertThat(e).contains("job("));
  }

  /** Java block {@code index} (from 0) of {@code document}, a path from the repository root. */
  static String snippet(String document, int index) throws IOException {
    List<String> blocks = snippets(Files.readString(Path.of("..", document),
        StandardCharsets.UTF_8));
    assertThat(blocks).as("java blocks of %s", document).hasSizeGreaterThan(index);
    return blocks.get(index);
  }

  static List<String> snippets(String readme) {
    List<String> blocks = new ArrayList<>();
    Matcher matcher = JAVA_BLOCK.matcher(readme);
    while (matcher.find()) {
      blocks.add(matcher.group(1));
    }
    return blocks;
  }

  private List<String> errors(int index, String snippet) {
    String body = IMPORT.matcher(snippet).replaceAll("");
    String name = "ReadmeSnippet" + index;
    String source = IMPORTS + "\nclass " + name + " {\n  void run() throws Exception {\n"
        + body + "\n  }\n}\n";
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
    JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///" + name + ".java"),
        JavaFileObject.Kind.SOURCE) {
      @Override
      public CharSequence getCharContent(boolean ignoreEncodingErrors) {
        return source;
      }
    };
    boolean ok = compiler.getTask(null, null, diagnostics, List.of("-proc:none", "-d",
        classes.toString(), "-cp", System.getProperty("java.class.path")), null, List.of(file))
        .call();
    List<String> errors = diagnostics.getDiagnostics().stream()
        .filter(d -> d.getKind() == Diagnostic.Kind.ERROR)
        .map(d -> "line " + (d.getLineNumber() - IMPORTS.lines().count() - 2) + ": "
            + d.getMessage(Locale.ROOT))
        .toList();
    return ok ? List.of() : errors.isEmpty() ? List.of("compilation failed") : errors;
  }
}
