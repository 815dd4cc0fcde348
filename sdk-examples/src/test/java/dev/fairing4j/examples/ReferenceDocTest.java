package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/reference.md} is generated from the code and the guides, so it cannot go stale: the
 * public types of each module by package (from the same surface as {@link PublicApiTest}), and
 * every "Fairing / Kubeflow SDK next to fairing4j" table of the guides, in which each SDK call
 * named in the fairing4j column must exist. Regenerate with
 * {@code FAIRING4J_API_UPDATE=1 mvn -pl sdk-examples test -Dtest=ReferenceDocTest}.
 */
class ReferenceDocTest {
  private static final Path DOCS = Path.of("..", "docs").toAbsolutePath().normalize();
  /** The guides whose equivalents tables the reference gathers, in the order it shows them. */
  private static final List<String> GUIDES = List.of("building-images.md", "following.md",
      "trainjob.md", "serving.md", "tuning.md");
  private static final Pattern TABLE = Pattern.compile(
      "(?m)^\\| (?:Kubeflow|Fairing)[^\\n]*\\| fairing4j \\|\\n\\|---\\|---\\|\\n(?:\\|[^\\n]*\\n)+");
  private static final Pattern STATIC_CALL = Pattern.compile("\\b([A-Z]\\w+)\\.(\\w+)\\(");
  private static final Pattern CHAINED_CALL = Pattern.compile("\\.(\\w+)\\(");

  @Test
  void theReferencePageIsWhatTheCodeAndTheGuidesSayNow() throws Exception {
    GeneratedFile.assertCurrent(DOCS.resolve("reference.md"), generate(),
        "mvn -pl sdk-examples test -Dtest=ReferenceDocTest");
  }

  @Test
  void everySdkCallInTheEquivalentsTablesExists() throws Exception {
    Map<String, Class<?>> types = publicTypes();
    Set<String> methods = new HashSet<>();
    types.values().forEach(t -> {
      for (Method m : t.getMethods()) {
        methods.add(m.getName());
      }
    });
    for (Class<?> jdk : List.of(Optional.class, List.class, Map.class, Path.class)) {
      for (Method m : jdk.getMethods()) {
        methods.add(m.getName());
      }
    }
    List<String> missing = new ArrayList<>();
    int checked = 0;
    for (String guide : GUIDES) {
      for (String table : tables(guide)) {
        for (String row : table.lines().skip(2).toList()) {
          String fairing4j = row.substring(row.indexOf(" | ") + 3);
          Matcher call = STATIC_CALL.matcher(fairing4j);
          while (call.find()) {
            Class<?> type = types.get(call.group(1));
            if (type == null && isJdk(call.group(1))) {
              continue;
            }
            checked++;
            String name = call.group(2);
            if (type == null || java.util.Arrays.stream(type.getMethods())
                .noneMatch(m -> m.getName().equals(name) && Modifier.isStatic(m.getModifiers()))) {
              missing.add(guide + ": " + call.group(1) + "." + name + "(..)");
            }
          }
          Matcher chained = CHAINED_CALL.matcher(fairing4j.replaceAll("\\b[A-Z]\\w+\\.\\w+\\(", "("));
          while (chained.find()) {
            checked++;
            if (!methods.contains(chained.group(1))) {
              missing.add(guide + ": ." + chained.group(1) + "(..)");
            }
          }
        }
      }
    }
    assertThat(checked).as("SDK calls named in the tables").isGreaterThan(20);
    assertThat(missing).as("calls the equivalents tables name that the SDK does not have")
        .isEmpty();
  }

  private static boolean isJdk(String simpleName) {
    return Set.of("Path", "List", "Map", "Set", "Duration", "Optional").contains(simpleName);
  }

  private static List<String> tables(String guide) throws IOException {
    String text = Files.readString(DOCS.resolve(guide), StandardCharsets.UTF_8);
    List<String> tables = new ArrayList<>();
    Matcher m = TABLE.matcher(text);
    while (m.find()) {
      tables.add(m.group());
    }
    assertThat(tables).as("equivalents tables in docs/%s", guide).isNotEmpty();
    return tables;
  }

  /** Every public type of the published modules, by its name in its package. */
  private static Map<String, Class<?>> publicTypes() throws Exception {
    Map<String, Class<?>> types = new HashMap<>();
    for (Class<?> anchor : PublicApiTest.MODULES.values()) {
      for (Class<?> type : PublicApiTest.apiTypes(anchor)) {
        types.putIfAbsent(PublicApiTest.nameInPackage(type), type);
      }
    }
    return types;
  }

  private static String generate() throws Exception {
    StringBuilder page = new StringBuilder("""
        # Reference

        This page is generated from the code and the guides (`ReferenceDocTest` checks it on every
        build). The full signatures are in each module's checked-in API list, `sdk-core/api/`,
        `sdk-builder/api/` and `sdk-deployer/api/`; the javadoc is in each module's
        `-javadoc.jar` and in the aggregated site that `scripts/release.sh` builds.

        Every mistake the SDK refuses, with the error it raises, is on its own generated page:
        [Bad input and what fairing4j answers](bad-input.md).

        ## Public API

        """);
    for (Map.Entry<String, Class<?>> module : new TreeMap<>(PublicApiTest.MODULES).entrySet()) {
      TreeMap<String, List<String>> byPackage = new TreeMap<>();
      // In the order of the API list, whose lines start with the type's dotted name.
      List<Class<?>> types = PublicApiTest.apiTypes(module.getValue()).stream()
          .sorted(java.util.Comparator.comparing(t -> t.getName().replace('$', '.') + ":"))
          .toList();
      for (Class<?> type : types) {
        byPackage.computeIfAbsent(type.getPackageName(), p -> new ArrayList<>())
            .add("`" + PublicApiTest.nameInPackage(type) + "` (" + PublicApiTest.kind(type) + ")");
      }
      int members = PublicApiTest.surface(module.getValue()).size() - types.size();
      int typeCount = byPackage.values().stream().mapToInt(List::size).sum();
      page.append("### ").append(module.getKey()).append("\n\n").append(typeCount)
          .append(" public types, ").append(members).append(" public members.\n\n");
      byPackage.forEach((pkg, names) -> page.append("- `").append(pkg).append("`: ")
          .append(String.join(", ", names)).append("\n"));
      page.append("\n");
    }
    page.append("""
        ## Kubeflow Fairing and Kubeflow SDK equivalents

        Gathered from the guides; every SDK call in the right-hand column is checked to exist.

        """);
    for (String guide : GUIDES) {
      for (String table : tables(guide)) {
        page.append("From [").append(guide).append("](").append(guide).append("):\n\n")
            .append(table).append("\n");
      }
    }
    return page.toString().strip() + "\n";
  }
}
