package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/**
 * The release as a user and as Maven Central meet it: {@code scripts/release.sh 0.1.0} run on a
 * copy of this tree (with a throw-away key, and a second build compared byte by byte), its upload
 * bundle read the way Central's validation reads one, and a Maven project in an empty directory,
 * with an empty local repository, that imports the BOM, declares the SDK by its coordinates and
 * runs a 2-replica PyTorchJob on {@code Clusters.local()}.
 *
 * <p>The consumer sees two repositories only: the release's file repository, and this machine's
 * Maven cache as a read-only mirror of Central (so the test downloads nothing). fairing4j must
 * come from the first: the cache holds only the reactor's SNAPSHOTs, and the test checks where
 * each fairing4j file came from. The published POMs are flattened with every dependency at the
 * version the build tested; without that the consumer resolved client-java's own Jackson 2.15.2.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReleaseIT {
  private static final String VERSION = "0.1.0";
  private static final List<String> PUBLISHED = List.of("fairing4j-bom", "sdk-core",
      "sdk-builder", "sdk-deployer");
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path OUT = Path.of("target", "release-it").toAbsolutePath();

  private String releaseLog;

  @BeforeAll
  void release() throws Exception {
    Commands.Result run = run(ROOT, Duration.ofMinutes(15), List.of("bash", "scripts/release.sh", VERSION,
        "--out", OUT.toString(), "--throwaway-key", "--check-reproducible"), Map.of());
    releaseLog = run.output();
    assertThat(run.status()).as("scripts/release.sh:%n%s", tail(releaseLog)).isZero();
  }

  @Test
  @Order(1)
  void twoBuildsOfTheReleaseAreByteIdentical() {
    assertThat(releaseLog).containsPattern(
        "reproducible: the second build's \\d+ files are byte-identical to the first's");
  }

  @Test
  @Order(2)
  void theBundleHoldsWhatCentralRequiresSignedAndSummed() throws Exception {
    Path bundle = OUT.resolve("central-bundle.zip");
    Map<String, byte[]> files = new TreeMap<>();
    try (ZipFile zip = new ZipFile(bundle.toFile())) {
      for (ZipEntry entry : zip.stream().toList()) {
        try (InputStream in = zip.getInputStream(entry)) {
          files.put(entry.getName(), in.readAllBytes());
        }
      }
    }
    System.out.println("central-bundle.zip (" + files.size() + " files):");
    files.forEach((name, bytes) -> System.out.printf("  %8d  %s%n", bytes.length, name));

    assertThat(files.keySet()).noneMatch(n -> n.contains("SNAPSHOT"))
        .noneMatch(n -> n.contains("sdk-examples")).noneMatch(n -> n.contains("-tests.jar"))
        .noneMatch(n -> n.contains("maven-metadata"));
    for (String artifact : PUBLISHED) {
      String base = "dev/fairing4j/" + artifact + "/" + VERSION + "/" + artifact + "-" + VERSION;
      List<String> required = new ArrayList<>(List.of(base + ".pom"));
      if (artifact.startsWith("sdk-")) {
        required.addAll(List.of(base + ".jar", base + "-sources.jar", base + "-javadoc.jar",
            base + "-cyclonedx.json"));
      }
      assertThat(files.keySet()).as("files of %s", artifact).containsAll(required);
      checkPom(artifact, files.get(base + ".pom"));
    }
    Path signed = Files.createTempDirectory(OUT, "verify");
    for (Map.Entry<String, byte[]> file : files.entrySet()) {
      String name = file.getKey();
      if (name.endsWith(".md5") || name.endsWith(".sha1") || name.endsWith(".asc")) {
        continue;
      }
      assertThat(files).as("checksums and signature of %s", name)
          .containsKeys(name + ".md5", name + ".sha1", name + ".asc");
      assertThat(text(files.get(name + ".md5"))).as(name + ".md5")
          .isEqualTo(digest("MD5", file.getValue()));
      assertThat(text(files.get(name + ".sha1"))).as(name + ".sha1")
          .isEqualTo(digest("SHA-1", file.getValue()));
      Path data = signed.resolve(Path.of(name).getFileName().toString());
      Files.write(data, file.getValue());
      Files.write(signed.resolve(data.getFileName() + ".asc"), files.get(name + ".asc"));
    }
    Path keyring = Files.createTempDirectory(OUT, "gnupg");
    Map<String, String> env = Map.of("GNUPGHOME", keyring.toString());
    assertThat(run(OUT, Duration.ofSeconds(30), List.of("gpg", "--batch", "--import",
        OUT.resolve("throwaway-key.asc").toString()), env).status()).isZero();
    try (Stream<Path> signatures = Files.list(signed)) {
      for (Path asc : signatures.filter(p -> p.toString().endsWith(".asc")).toList()) {
        Path data = Path.of(asc.toString().replaceFirst("\\.asc$", ""));
        Commands.Result verify = run(OUT, Duration.ofSeconds(30), List.of("gpg", "--batch", "--verify",
            asc.toString(), data.toString()), env);
        assertThat(verify.status()).as("gpg --verify %s:%n%s", asc.getFileName(), verify.output())
            .isZero();
      }
    }
    // The check itself: a changed byte no longer matches its signature.
    Path jar = signed.resolve("sdk-core-" + VERSION + ".jar");
    byte[] bytes = Files.readAllBytes(jar);
    bytes[bytes.length / 2] ^= 1;
    Files.write(jar, bytes);
    assertThat(run(OUT, Duration.ofSeconds(30), List.of("gpg", "--batch", "--verify",
        jar + ".asc", jar.toString()), env).status()).isNotZero();
  }

  /** What Central's validation asks of a POM: coordinates without placeholders, and metadata. */
  private static void checkPom(String artifact, byte[] xml) throws Exception {
    Document pom = DocumentBuilderFactory.newInstance().newDocumentBuilder()
        .parse(new java.io.ByteArrayInputStream(xml));
    Element project = pom.getDocumentElement();
    String text = new String(xml, StandardCharsets.UTF_8);
    assertThat(text).as("%s.pom", artifact).doesNotContain("${revision}");
    for (String field : List.of("name", "description", "url")) {
      assertThat(child(project, field)).as("%s.pom <%s>", artifact, field).isNotBlank();
    }
    assertThat(project.getElementsByTagName("license").getLength()).as(artifact + " licenses")
        .isPositive();
    assertThat(project.getElementsByTagName("developer").getLength()).as(artifact + " developers")
        .isPositive();
    Element scm = (Element) project.getElementsByTagName("scm").item(0);
    assertThat(scm).as(artifact + " scm").isNotNull();
    assertThat(child(scm, "url")).isNotBlank();
    assertThat(child(scm, "connection")).isNotBlank();
    // Flattened: no parent left to resolve, and the version written in, not a placeholder.
    assertThat(project.getElementsByTagName("parent").getLength()).as(artifact + " parent")
        .isZero();
    assertThat(child(project, "groupId")).isEqualTo("dev.fairing4j");
    assertThat(child(project, "version")).isEqualTo(VERSION);
    assertThat(text).as("%s.pom", artifact).doesNotContain("${");
  }

  @Test
  @Order(3)
  void aMavenProjectOutsideTheReactorImportsTheBomAndRunsAPyTorchJobLocally() throws Exception {
    Path project = Files.createTempDirectory(OUT, "consumer");
    Path localRepo = Files.createDirectories(project.resolve("m2"));
    Files.writeString(project.resolve("settings.xml"), settings(localRepo));
    Files.writeString(project.resolve("pom.xml"), """
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>example</groupId>
          <artifactId>adopter</artifactId>
          <version>1</version>
          <properties>
            <maven.compiler.release>17</maven.compiler.release>
            <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
          </properties>
          <repositories>
            <repository>
              <id>fairing4j-release</id>
              <url>%s</url>
            </repository>
          </repositories>
          <dependencyManagement>
            <dependencies>
              <dependency>
                <groupId>dev.fairing4j</groupId>
                <artifactId>fairing4j-bom</artifactId>
                <version>%s</version>
                <type>pom</type>
                <scope>import</scope>
              </dependency>
            </dependencies>
          </dependencyManagement>
          <dependencies>
            <dependency>
              <groupId>dev.fairing4j</groupId>
              <artifactId>sdk-deployer</artifactId>
            </dependency>
            <dependency>
              <groupId>dev.fairing4j</groupId>
              <artifactId>sdk-builder</artifactId>
            </dependency>
          </dependencies>
          <build>
            <pluginManagement>
              <plugins>
                <plugin>
                  <artifactId>maven-resources-plugin</artifactId><version>3.3.1</version>
                </plugin>
                <plugin>
                  <artifactId>maven-compiler-plugin</artifactId><version>3.13.0</version>
                </plugin>
              </plugins>
            </pluginManagement>
          </build>
        </project>
        """.formatted(OUT.resolve("repository").toUri(), VERSION));
    Path source = Files.createDirectories(project.resolve("src/main/java/example"));
    Files.writeString(source.resolve("Main.java"), """
        package example;

        import dev.fairing4j.builder.Preprocessors;
        import dev.fairing4j.core.Fairing;
        import dev.fairing4j.core.TrainingJob;
        import dev.fairing4j.deployer.Clusters;
        import dev.fairing4j.deployer.Deployers;
        import java.time.Duration;

        public class Main {
          public static void main(String[] args) throws Exception {
            String train = \"""
                import torch, torch.distributed as dist
                dist.init_process_group("gloo")
                t = torch.ones(1) * (dist.get_rank() + 1)
                dist.all_reduce(t)
                print(f"rank {dist.get_rank()} of {dist.get_world_size()}: sum={t.item():.0f}")
                \""";
            TrainingJob job = Fairing.pipeline()
                .preprocessor(Preprocessors.source("train.py", train))
                .deployer(Deployers.pyTorchJob("adopter").workers(1).replaceExisting()
                    .on(Clusters.local().tiedToJvm()))
                .run();
            try (var logs = job.logs().follow(System.out::println)) {
              job.waitForCompletion(Duration.ofMinutes(5));
              logs.awaitEnd(Duration.ofSeconds(10));
            }
            System.out.println(job.status().toTable());
            job.delete();
          }
        }
        """);
    Path classpath = project.resolve("classpath.txt");
    Commands.Result build = run(project, Duration.ofMinutes(5), List.of("mvn", "-B", "-ntp", "-s",
        "settings.xml", "compile", "org.apache.maven.plugins:maven-dependency-plugin:3.8.1"
            + ":build-classpath", "-Dmdep.outputFile=" + classpath), Map.of());
    assertThat(build.status()).as("mvn compile in the consumer project:%n%s", tail(build.output()))
        .isZero();

    // Every fairing4j file came from the release's repository, and none is a SNAPSHOT.
    Path fairing4j = localRepo.resolve("dev/fairing4j");
    try (Stream<Path> origins = Files.walk(fairing4j)) {
      List<Path> records = origins.filter(p -> p.getFileName().toString()
          .equals("_remote.repositories")).toList();
      assertThat(records).isNotEmpty();
      for (Path record : records) {
        assertThat(Files.readString(record)).as(record.toString()).contains(">fairing4j-release=")
            .doesNotContain("machine-cache");
      }
    }
    String cp = Files.readString(classpath).strip();
    assertThat(cp).contains("sdk-deployer-" + VERSION + ".jar").doesNotContain("SNAPSHOT")
        .doesNotContain(ROOT.resolve("sdk-deployer/target").toString());

    Commands.Result main = run(project, Duration.ofMinutes(5), List.of("java", "-cp",
        project.resolve("target/classes") + ":" + cp, "example.Main"), Map.of());
    System.out.println("consumer main:\n" + main.output());
    assertThat(main.status()).as("java example.Main:%n%s", tail(main.output())).isZero();
    assertThat(main.output()).contains("[master-0] rank 0 of 2: sum=3")
        .contains("[worker-0] rank 1 of 2: sum=3").containsPattern("Succeeded");
  }

  /** An empty local repository; the machine's Maven cache stands in for Central, read-only. */
  static String settings(Path localRepo) {
    Path cache = Path.of(System.getProperty("user.home"), ".m2", "repository");
    return """
        <settings xmlns="http://maven.apache.org/SETTINGS/1.0.0">
          <localRepository>%s</localRepository>
          <mirrors>
            <mirror>
              <id>machine-cache</id>
              <mirrorOf>*,!fairing4j-release</mirrorOf>
              <url>%s</url>
            </mirror>
          </mirrors>
        </settings>
        """.formatted(localRepo, cache.toUri());
  }

  private static String child(Element parent, String name) {
    for (org.w3c.dom.Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
      if (n instanceof Element e && e.getTagName().equals(name)) {
        return e.getTextContent().strip();
      }
    }
    return "";
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.US_ASCII).strip().split("\\s+")[0];
  }

  private static String digest(String algorithm, byte[] bytes) throws NoSuchAlgorithmException {
    return HexFormat.of().formatHex(MessageDigest.getInstance(algorithm).digest(bytes));
  }

  private static String tail(String output) {
    List<String> lines = output.lines().toList();
    return lines.subList(Math.max(0, lines.size() - 60), lines.size()).stream()
        .collect(Collectors.joining("\n"));
  }

  private static Commands.Result run(Path dir, Duration limit, List<String> command,
      Map<String, String> env) throws IOException, InterruptedException {
    return Commands.run(command, dir, env, limit, Files.createDirectories(OUT));
  }
}
