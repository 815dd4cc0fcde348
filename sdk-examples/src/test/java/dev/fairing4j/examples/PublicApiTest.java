package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.builder.Builders;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.deployer.Deployers;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The public API of each published module, as a checked-in list ({@code <module>/api/<module>.api})
 * that this test compares with the compiled classes: every public type outside {@code internal}
 * packages and its public and protected members, one line each, sorted. A change to the surface
 * fails here until the list is updated in the same commit, so every API change is visible in
 * review; japicmp (the build's {@code api-compatibility} execution) judges whether it breaks
 * users of the baseline release. Update the lists with
 * {@code FAIRING4J_API_UPDATE=1 mvn -pl sdk-examples test -Dtest=PublicApiTest}.
 */
class PublicApiTest {
  /** Each published module, by a class that lives in it. */
  static final Map<String, Class<?>> MODULES = Map.of("sdk-core", Fairing.class,
      "sdk-builder", Builders.class, "sdk-deployer", Deployers.class);
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void everyPublishedModulesPublicApiMatchesItsCheckedInList() throws Exception {
    boolean update = GeneratedFile.updating();
    for (Map.Entry<String, Class<?>> module : new java.util.TreeMap<>(MODULES).entrySet()) {
      String actual = String.join("\n", surface(module.getValue())) + "\n";
      Path file = ROOT.resolve(module.getKey()).resolve("api").resolve(module.getKey() + ".api");
      if (update) {
        Files.createDirectories(file.getParent());
        Files.writeString(file, actual, StandardCharsets.UTF_8);
      }
      assertThat(file).as("%s: the checked-in API list; create it with FAIRING4J_API_UPDATE=1",
          module.getKey()).exists();
      List<String> expected = Files.readAllLines(file, StandardCharsets.UTF_8);
      List<String> now = actual.lines().toList();
      List<String> added = now.stream().filter(l -> !expected.contains(l)).toList();
      List<String> removed = expected.stream().filter(l -> !now.contains(l)).toList();
      assertThat(added.isEmpty() && removed.isEmpty()).as("%s's public API changed.%n"
          + "added:%n  %s%nremoved:%n  %s%nIf this is meant, update %s with"
          + " FAIRING4J_API_UPDATE=1 mvn -pl sdk-examples test -Dtest=PublicApiTest, and say"
          + " in CHANGELOG.md what users can now do (or must change).", module.getKey(),
          String.join("\n  ", added), String.join("\n  ", removed), ROOT.relativize(file))
          .isTrue();
    }
  }

  @Test
  void theListNamesPublicMembersAndLeavesInternalsOut() throws Exception {
    List<String> core = surface(Fairing.class);
    assertThat(core).anyMatch(l -> l.startsWith("dev.fairing4j.core.Fairing: ")
        && l.contains("pipeline()"));
    assertThat(core).noneMatch(l -> l.contains(".internal."));
    assertThat(core).noneMatch(l -> l.contains(" private "));
  }

  /** The public types outside internal packages of the module that holds {@code anchor}. */
  static List<Class<?>> apiTypes(Class<?> anchor) throws IOException, URISyntaxException {
    Path location = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<Class<?>> types = new ArrayList<>();
    for (String name : classNames(location)) {
      Class<?> type;
      try {
        type = Class.forName(name, false, anchor.getClassLoader());
      } catch (ClassNotFoundException | LinkageError e) {
        throw new IllegalStateException("cannot load " + name, e);
      }
      if (isApi(type)) {
        types.add(type);
      }
    }
    return types;
  }

  /** The sorted lines of the public API of the module that holds {@code anchor}. */
  static List<String> surface(Class<?> anchor) throws IOException, URISyntaxException {
    TreeSet<String> lines = new TreeSet<>();
    for (Class<?> type : apiTypes(anchor)) {
      String owner = type.getName().replace('$', '.');
      lines.add(owner + ": " + declaration(type));
      for (Constructor<?> c : type.getDeclaredConstructors()) {
        if (visible(c) && !c.isSynthetic()) {
          lines.add(owner + ": " + member(type, c.toGenericString()));
        }
      }
      for (Method m : type.getDeclaredMethods()) {
        if (visible(m) && !m.isSynthetic() && !m.isBridge()) {
          lines.add(owner + ": " + member(type, m.toGenericString()));
        }
      }
      // Public methods a public type inherits from a superclass that is not public are API of
      // this type; javac writes them into it as bridges, which the loop above skips.
      for (Class<?> up = type.getSuperclass(); up != null && !isApi(up)
          && up.getName().startsWith("dev."); up = up.getSuperclass()) {
        for (Method m : up.getDeclaredMethods()) {
          if (Modifier.isPublic(m.getModifiers()) && !m.isSynthetic() && !m.isBridge()) {
            lines.add(owner + ": " + member(up, m.toGenericString()) + " (from "
                + up.getSimpleName() + ")");
          }
        }
      }
      for (Field f : type.getDeclaredFields()) {
        if (visible(f) && !f.isSynthetic()) {
          lines.add(owner + ": " + member(type, f.toGenericString()));
        }
      }
    }
    return new ArrayList<>(lines);
  }

  /** The member's signature without its owner's name, which the line already starts with. */
  private static String member(Class<?> owner, String signature) {
    return signature.replace(owner.getTypeName() + ".", "").replace(owner.getName() + ".", "");
  }

  private static boolean isApi(Class<?> type) {
    if (type.getPackageName().contains(".internal") || type.isAnonymousClass()
        || type.isLocalClass() || type.isSynthetic()) {
      return false;
    }
    for (Class<?> t = type; t != null; t = t.getDeclaringClass()) {
      if (!Modifier.isPublic(t.getModifiers())) {
        return false;
      }
    }
    return true;
  }

  private static boolean visible(Member member) {
    int modifiers = member.getModifiers();
    if (Modifier.isPublic(modifiers)) {
      return true;
    }
    // Protected members are API only where a user can subclass.
    return Modifier.isProtected(modifiers) && !Modifier.isFinal(member.getDeclaringClass()
        .getModifiers()) && !(member instanceof Executable e && e.getDeclaringClass().isEnum());
  }

  /** What {@code type} is, as its declaration says: class, interface, enum, record, @interface. */
  static String kind(Class<?> type) {
    return type.isAnnotation() ? "@interface" : type.isInterface() ? "interface"
        : type.isEnum() ? "enum" : type.isRecord() ? "record" : "class";
  }

  /** {@code type}'s name in its package, a nested one as {@code Outer.Inner}. */
  static String nameInPackage(Class<?> type) {
    return type.getName().substring(type.getPackageName().length() + 1).replace('$', '.');
  }

  private static String declaration(Class<?> type) {
    String kind = kind(type);
    int modifiers = type.getModifiers() & (Modifier.PUBLIC | Modifier.ABSTRACT | Modifier.FINAL
        | Modifier.STATIC);
    if (type.isInterface()) {
      modifiers &= ~Modifier.ABSTRACT;
    }
    StringBuilder d = new StringBuilder(Modifier.toString(modifiers)).append(' ').append(kind);
    if (type.isSealed()) {
      d.append(" sealed");
    }
    if (type.getGenericSuperclass() != null && type.getSuperclass() != Object.class
        && !type.isEnum() && !type.isRecord()) {
      d.append(" extends ").append(type.getGenericSuperclass().getTypeName());
    }
    if (type.getGenericInterfaces().length > 0) {
      d.append(type.isInterface() ? " extends " : " implements ").append(String.join(", ",
          Arrays.stream(type.getGenericInterfaces()).map(java.lang.reflect.Type::getTypeName)
              .toList()));
    }
    return d.toString();
  }

  private static List<String> classNames(Path location) throws IOException {
    List<String> names = new ArrayList<>();
    if (Files.isDirectory(location)) {
      try (Stream<Path> files = Files.walk(location)) {
        files.filter(p -> p.toString().endsWith(".class")).forEach(p -> names.add(
            className(location.relativize(p).toString().replace('\\', '/'))));
      }
    } else {
      try (JarFile jar = new JarFile(location.toFile())) {
        jar.stream().map(e -> e.getName()).filter(n -> n.endsWith(".class"))
            .forEach(n -> names.add(className(n)));
      }
    }
    names.removeIf(n -> n.endsWith("module-info") || n.endsWith("package-info"));
    return names;
  }

  private static String className(String path) {
    return path.substring(0, path.length() - ".class".length()).replace('/', '.');
  }
}
