package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.ImportTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreeScanner;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * No import in the SDK's main sources exists only for javadoc. Why: such an import is a
 * dependency a reader and the layering rules see but the code does not have, and in a lower
 * layer it points up (a runtime class "importing" the plan that uses it): two file circles of
 * the deployer existed only that way. Javadoc names such a type fully qualified, or in
 * {@code {@code}} where it belongs to a layer above. Checked on javac's parse trees, which hold
 * no comments: a type named only in javadoc appears there nowhere but in its import.
 */
class ImportsTest {
  @Test
  void noImportOfTheMainSourcesServesOnlyJavadoc() throws IOException {
    List<Path> sources = PublicTypesDocumentedTest.mainSources();
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    try (StandardJavaFileManager files =
        compiler.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
      assertThat(unusedImports(compiler, files.getJavaFileObjectsFromPaths(sources))).isEmpty();
    }
  }

  @Test
  void anImportNamedOnlyInJavadocIsFoundAndOneUsedInCodeIsNot() throws IOException {
    JavaFileObject planted = new SimpleJavaFileObject(URI.create("string:///p/Planted.java"),
        JavaFileObject.Kind.SOURCE) {
      @Override
      public CharSequence getCharContent(boolean ignoreEncodingErrors) {
        return """
            package p;

            import java.time.Duration;
            import java.util.List;
            import java.util.Map;

            /** Lasts a {@link Duration}; "Map" in a string is no use either. */
            class Planted {
              List<String> names() {
                return List.of("Map");
              }
            }
            """;
      }
    };
    assertThat(unusedImports(ToolProvider.getSystemJavaCompiler(), List.of(planted)))
        .containsExactly("Planted.java: java.time.Duration", "Planted.java: java.util.Map");
  }

  private static List<String> unusedImports(JavaCompiler compiler,
      Iterable<? extends JavaFileObject> sources) throws IOException {
    JavacTask task = (JavacTask) compiler.getTask(null, null, diagnostic -> { }, null, null,
        sources);
    List<String> unused = new ArrayList<>();
    for (CompilationUnitTree unit : task.parse()) {
      Set<String> used = new HashSet<>();
      TreeScanner<Void, Void> names = new TreeScanner<>() {
        @Override
        public Void visitIdentifier(IdentifierTree identifier, Void unused) {
          used.add(identifier.getName().toString());
          return null;
        }
      };
      unit.getTypeDecls().forEach(type -> type.accept(names, null));
      unit.getPackageAnnotations().forEach(annotation -> annotation.accept(names, null));
      for (ImportTree imported : unit.getImports()) {
        if (imported.isStatic() || !(imported.getQualifiedIdentifier()
            instanceof MemberSelectTree select)) {
          continue;
        }
        String name = select.getIdentifier().toString();
        if (!name.equals("*") && !used.contains(name)) {
          String file = Path.of(unit.getSourceFile().toUri().getPath()).getFileName().toString();
          unused.add(file + ": " + select);
        }
      }
    }
    return unused;
  }
}
