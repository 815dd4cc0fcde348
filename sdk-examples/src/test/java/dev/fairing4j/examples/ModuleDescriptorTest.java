package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor.Exports;
import java.lang.module.ModuleDescriptor.Opens;
import java.lang.module.ModuleDescriptor.Requires;
import java.lang.module.ModuleDescriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Each published module's {@code module-info}: it exports exactly the packages that hold its
 * public API (those {@link PublicApiTest} lists), never an {@code internal} one except to the
 * SDK's own modules, opens packages to Jackson only (which reads and writes the SDK's records by
 * reflection), and hands the core on to its users ({@code requires transitive}), since every
 * builder and deployer signature names core types. ReleaseIT runs a job with the released jars on
 * the module path.
 */
class ModuleDescriptorTest {
  private static final Map<String, String> NAMES = Map.of("sdk-core", "dev.fairing4j.core",
      "sdk-builder", "dev.fairing4j.builder", "sdk-deployer", "dev.fairing4j.deployer");
  private static final Set<String> SDK_MODULES = Set.copyOf(NAMES.values());

  @Test
  void everyPublishedModuleExportsItsApiPackagesAndNoInternalOne() throws Exception {
    for (Map.Entry<String, Class<?>> module : new TreeMap<>(PublicApiTest.MODULES).entrySet()) {
      ModuleDescriptor descriptor = descriptor(module.getValue());
      assertThat(descriptor.name()).isEqualTo(NAMES.get(module.getKey()));

      Set<String> apiPackages = PublicApiTest.apiTypes(module.getValue()).stream()
          .map(Class::getPackageName).collect(Collectors.toCollection(TreeSet::new));
      Set<String> exported = descriptor.exports().stream().filter(e -> !e.isQualified())
          .map(Exports::source).collect(Collectors.toCollection(TreeSet::new));
      assertThat(exported).as("%s: the packages exported to everyone", descriptor.name())
          .isEqualTo(apiPackages);
      assertThat(exported).noneMatch(p -> p.contains(".internal"));

      for (Exports qualified : descriptor.exports()) {
        if (qualified.isQualified()) {
          assertThat(qualified.source()).as("%s exports to %s", descriptor.name(),
              qualified.targets()).contains(".internal");
          assertThat(SDK_MODULES).as("%s's internal packages go to the SDK's modules only",
              descriptor.name()).containsAll(qualified.targets());
        }
      }
      for (Opens opens : descriptor.opens()) {
        assertThat(opens.targets()).as("%s opens %s", descriptor.name(), opens.source())
            .containsExactly("com.fasterxml.jackson.databind");
      }
      assertThat(descriptor.packages()).as("every package of %s is exported or internal",
          descriptor.name()).allMatch(p -> exported.contains(p) || p.contains(".internal"));
      if (!descriptor.name().equals("dev.fairing4j.core")) {
        assertThat(descriptor.requires()).as("%s requires", descriptor.name())
            .anyMatch(r -> r.name().equals("dev.fairing4j.core")
                && r.modifiers().contains(Requires.Modifier.TRANSITIVE));
      }
    }
  }

  /**
   * A service the SDK finds with {@link java.util.ServiceLoader} is found on both paths: each
   * module's {@code provides} lists exactly what its {@code META-INF/services} files list (the
   * class path reads those, the module path ignores them), and the module that loads a service
   * declares {@code uses} for it (without it, the module path throws ServiceConfigurationError).
   */
  @Test
  void everyProvidedServiceIsDeclaredForBothPathsAndUsedByItsLoader() throws Exception {
    Set<String> used = new TreeSet<>();
    Map<String, Set<String>> provided = new TreeMap<>();
    for (Class<?> anchor : PublicApiTest.MODULES.values()) {
      ModuleDescriptor descriptor = descriptor(anchor);
      used.addAll(descriptor.uses());
      Map<String, Set<String>> declared = new TreeMap<>();
      descriptor.provides().forEach(p -> declared.put(p.service(), new TreeSet<>(p.providers())));
      assertThat(declared).as("%s: provides against META-INF/services", descriptor.name())
          .isEqualTo(serviceFiles(anchor));
      provided.putAll(declared);
    }
    assertThat(provided).as("the SDK provides its kinds and its chart renderer")
        .containsKeys("dev.fairing4j.deployer.job.internal.kinds.TrainingKind",
            "dev.fairing4j.core.internal.ChartRenderer");
    assertThat(used).as("services some SDK module loads").containsAll(provided.keySet());
  }

  /** The {@code META-INF/services} entries of the jar or class directory of {@code anchor}. */
  private static Map<String, Set<String>> serviceFiles(Class<?> anchor) throws Exception {
    Path location = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
    Map<String, Set<String>> services = new TreeMap<>();
    if (Files.isDirectory(location)) {
      Path dir = location.resolve("META-INF/services");
      if (Files.isDirectory(dir)) {
        try (var files = Files.list(dir)) {
          for (Path file : files.toList()) {
            services.put(file.getFileName().toString(), entries(Files.readString(file)));
          }
        }
      }
      return services;
    }
    try (JarFile jar = new JarFile(location.toFile())) {
      for (var entry : java.util.Collections.list(jar.entries())) {
        String name = entry.getName();
        if (name.startsWith("META-INF/services/") && !entry.isDirectory()) {
          try (InputStream in = jar.getInputStream(entry)) {
            services.put(name.substring("META-INF/services/".length()),
                entries(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)));
          }
        }
      }
    }
    return services;
  }

  private static Set<String> entries(String file) {
    return file.lines().map(l -> l.replaceAll("#.*", "").trim()).filter(l -> !l.isEmpty())
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** The compiled module-info of the jar or class directory {@code anchor} was loaded from. */
  private static ModuleDescriptor descriptor(Class<?> anchor) throws Exception {
    Path location = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
    if (Files.isDirectory(location)) {
      Path file = location.resolve("module-info.class");
      assertThat(file).as("module-info.class beside %s", anchor.getName()).isRegularFile();
      try (InputStream in = Files.newInputStream(file)) {
        return ModuleDescriptor.read(in);
      }
    }
    try (JarFile jar = new JarFile(location.toFile())) {
      var entry = jar.getEntry("module-info.class");
      assertThat(entry).as("module-info.class in %s", location).isNotNull();
      try (InputStream in = jar.getInputStream(entry)) {
        return ModuleDescriptor.read(in);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + location, e);
    }
  }
}
