package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.util.DocTrees;
import com.sun.source.util.JavacTask;
import com.sun.source.util.TreePathScanner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.lang.model.element.Modifier;
import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * The project's rule that every public type has javadoc saying what it is for, over the main
 * sources of every module, internal packages included. The build's doclint leaves out its
 * {@code missing} group, which would also ask for {@code @param} and {@code @return} on every
 * member; this checks the types alone, on the parsed sources.
 */
class PublicTypesDocumentedTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  /** The main Java sources of every module, for the checks that parse them. */
  static List<Path> mainSources() throws IOException {
    List<Path> sources = new ArrayList<>();
    for (String module : List.of("sdk-core", "sdk-builder", "sdk-deployer", "sdk-examples")) {
      try (Stream<Path> files = Files.walk(ROOT.resolve(module).resolve("src/main/java"))) {
        files.filter(file -> file.toString().endsWith(".java")).forEach(sources::add);
      }
    }
    assertThat(sources).hasSizeGreaterThan(300);
    return sources;
  }

  @Test
  void everyPublicTypeHasJavadoc() throws IOException {
    List<Path> sources = mainSources();

    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    List<String> undocumented = new ArrayList<>();
    try (StandardJavaFileManager files =
        compiler.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
      JavacTask task = (JavacTask) compiler.getTask(null, files, diagnostic -> { }, null, null,
          files.getJavaFileObjectsFromPaths(sources));
      DocTrees trees = DocTrees.instance(task);
      for (CompilationUnitTree unit : task.parse()) {
        new TreePathScanner<Void, Void>() {
          @Override
          public Void visitClass(ClassTree type, Void unused) {
            if (type.getModifiers().getFlags().contains(Modifier.PUBLIC)
                && trees.getDocCommentTree(getCurrentPath()) == null) {
              undocumented.add(ROOT.relativize(Path.of(unit.getSourceFile().toUri())) + ": "
                  + type.getSimpleName());
            }
            return super.visitClass(type, unused);
          }
        }.scan(unit, null);
      }
    }
    assertThat(undocumented).as("public types without javadoc").isEmpty();
  }
}
