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
 * bundle read the way Central's validation reads one; then the SDK adopted as users adopt a
 * library, each in an empty directory with an empty local repository: a Maven project that imports
 * the BOM and runs a 2-replica PyTorchJob on {@code Clusters.local()}, a JShell session fed only the
 * released jars running the README's first example as it stands, a notebook in the rapaio kernel
 * that loads the SDK with the kernel's own {@code %dependency} lines, and a JBang script with
 * {@code //DEPS}. Last, japicmp against the release: a planted incompatible change fails the next
 * patch version's build and passes the next minor's.
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
        %s
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
        """.formatted(releaseRepository(), VERSION));
    Path source = Files.createDirectories(project.resolve("src/main/java/example"));
    Files.writeString(source.resolve("Main.java"), adopter("package example;\n", "Main",
        "adopter"));
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
        project.resolve("target/classes") + ":" + cp, "example.Main"), ownState());
    System.out.println("consumer main:\n" + main.output());
    assertThat(main.status()).as("java example.Main:%n%s", tail(main.output())).isZero();
    assertThat(main.output()).contains("[master-0] rank 0 of 2: sum=3")
        .contains("[worker-0] rank 1 of 2: sum=3").containsPattern("Succeeded");

    // The same jars on the module path: the SDK's descriptors resolve against what the POMs
    // brought (a module they require and the POMs lack fails at boot), and the job runs with
    // only the exported and Jackson-opened packages reachable.
    Commands.Result modular = run(project, Duration.ofMinutes(5), List.of("java",
        "--module-path", cp, "--add-modules", "ALL-MODULE-PATH", "-cp",
        project.resolve("target/classes").toString(), "example.Main"), ownState());
    System.out.println("consumer main on the module path:\n" + modular.output());
    assertThat(modular.status()).as("java --module-path .. example.Main:%n%s",
        tail(modular.output())).isZero();
    assertThat(modular.output()).contains("[master-0] rank 0 of 2: sum=3")
        .contains("[worker-0] rank 1 of 2: sum=3").containsPattern("Succeeded");
  }

  /**
   * Flattening writes the resolved tree into each POM; a dependency that the build reached first
   * through a test-scoped one fell out of it (OkHttp, Kotlin's stdlib and Bouncy Castle once did,
   * and every Kubernetes call then failed with NoClassDefFoundError on the class path). Each
   * module resolved alone from the release must bring exactly what the build ran with.
   */
  @Test
  @Order(4)
  void eachReleasedPomBringsExactlyTheRuntimeDependenciesTheBuildRanWith() throws Exception {
    for (String module : List.of("sdk-core", "sdk-builder", "sdk-deployer")) {
      Path dir = Files.createTempDirectory(OUT, "deps-" + module);
      resolveArtifacts(dir, List.of("dev.fairing4j:" + module + ":" + VERSION));
      Commands.Result list = run(dir, Duration.ofMinutes(3), List.of("mvn", "-B", "-ntp", "-o",
          "-s", "settings.xml", "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:list",
          "-DincludeScope=runtime", "-Dsort=true", "-DoutputFile=list.txt"), Map.of());
      assertThat(list.status()).as("dependency:list of %s:%n%s", module, tail(list.output()))
          .isZero();
      List<String> built = dependencies(OUT.resolve("runtime-dependencies/" + module + ".txt"));
      List<String> released = dependencies(dir.resolve("list.txt"));
      assertThat(built).as("%s's runtime dependencies in the release build", module)
          .isNotEmpty();
      assertThat(released).as("what %s's released POM brings, against what the build ran with",
          module).containsExactlyElementsOf(built);
    }
  }

  /** {@code groupId:artifactId:version} of each non-fairing4j entry of a dependency:list file. */
  private static List<String> dependencies(Path list) throws IOException {
    return Files.readAllLines(list).stream().map(String::strip)
        .filter(l -> l.matches("[\\w.-]+:[\\w.-]+:[\\w.-]+:.*"))
        .map(l -> l.split(" ")[0].split(":"))
        .map(p -> p[0] + ":" + p[1] + ":" + p[p.length - 2])
        .filter(gav -> !gav.startsWith("dev.fairing4j:")).sorted().toList();
  }

  @Test
  @Order(5)
  void aJShellSessionFedOnlyTheReleasedJarsRunsTheReadmesLocalExample() throws Exception {
    Path dir = Files.createTempDirectory(OUT, "jshell");
    String classpath = resolve(dir, "sdk-deployer", "sdk-builder");
    // The README's first java block as it stands, then the cleanup a user would type.
    String example = ReadmeSnippetsTest.snippet("README.md", 0);
    assertThat(example).contains("Clusters.local()");
    Files.writeString(dir.resolve("readme.jsh"), example + "job.delete();\n/exit\n");
    Commands.Result jshell = run(dir, Duration.ofMinutes(5), List.of(Commands.jdkTool("jshell"),
        "--class-path", classpath, "readme.jsh"), ownState());
    System.out.println("jshell readme.jsh:\n" + jshell.output());
    assertThat(jshell.status()).as("jshell:%n%s", tail(jshell.output())).isZero();
    assertThat(jshell.output()).contains("[master-0] rank 0 of 2: sum=3")
        .contains("[worker-0] rank 1 of 2: sum=3").containsPattern("hello +PyTorchJob +Succeeded")
        .doesNotContain("Error:").doesNotContain("Exception");
  }

  @Test
  @Order(6)
  void aNotebookInTheRapaioKernelLoadsTheReleaseByItsCoordinates() throws Exception {
    Path nbconvert = dev.fairing4j.core.testing.Tools.require("jupyter-nbconvert",
        "jupyter-nbconvert python3-nbclient python3-ipykernel jupyter-client");
    Path kernelJar = Path.of(System.getProperty("fairing4j.notebookKernel",
        "target/notebook-kernel/rapaio-jupyter-kernel.jar")).toAbsolutePath();
    assertThat(kernelJar).as("the build copies the kernel jar (maven-dependency-plugin)")
        .isRegularFile();
    Path dir = Files.createTempDirectory(OUT, "notebook");
    Path kernel = dir.resolve("kernel");
    Path jupyter = dir.resolve("jupyter");
    Commands.Result install = run(ROOT, Duration.ofMinutes(2), List.of("bash",
        "scripts/notebook-kernel.sh", "--kernel-dir", kernel.toString(), "--jupyter-dir",
        jupyter.toString(), "--jar", kernelJar.toString()), Map.of());
    assertThat(install.status()).as(install.output()).isZero();

    // The kernel's own dependency mechanism, with the release's repository added as a user adds
    // a company repository; its local cache starts empty, the machine's Maven cache is its
    // read-only tail (which holds no fairing4j release).
    String example = ReadmeSnippetsTest.snippet("README.md", 0);
    List<String> cells = List.of(
        "%dependency /add-repo fairing4j-release " + OUT.resolve("repository").toUri() + "\n"
            + "%dependency /add dev.fairing4j:sdk-deployer:" + VERSION + "\n"
            + "%dependency /add dev.fairing4j:sdk-builder:" + VERSION + "\n"
            + "%dependency /resolve",
        LocalClusterRedirect.apply(example, dir.resolve("state"), dir.resolve("volumes")),
        "job.delete();");
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();
    com.fasterxml.jackson.databind.node.ObjectNode notebook = json.createObjectNode();
    com.fasterxml.jackson.databind.node.ArrayNode cellNodes = notebook.putArray("cells");
    for (String cell : cells) {
      com.fasterxml.jackson.databind.node.ObjectNode node = cellNodes.addObject();
      node.put("cell_type", "code").putNull("execution_count");
      node.putObject("metadata");
      node.putArray("outputs");
      node.put("source", cell);
    }
    notebook.putObject("metadata").putObject("kernelspec").put("name", "rapaio-jupyter-kernel")
        .put("display_name", "Java (rapaio)").put("language", "java");
    notebook.put("nbformat", 4).put("nbformat_minor", 5);
    Path input = dir.resolve("release.ipynb");
    json.writeValue(input.toFile(), notebook);

    Commands.Result nb = run(dir, Duration.ofMinutes(10), List.of(nbconvert.toString(), "--to",
        "notebook", "--execute", "--ExecutePreprocessor.timeout=300", "--output",
        dir.resolve("executed.ipynb").toString(), input.toString()),
        Map.of("JUPYTER_PATH", jupyter.toString(), "JUPYTER_DATA_DIR", jupyter.toString()));
    assertThat(nb.status()).as("nbconvert --execute:%n%s", tail(nb.output())).isZero();
    com.fasterxml.jackson.databind.JsonNode executed = json.readTree(
        dir.resolve("executed.ipynb").toFile());
    StringBuilder shown = new StringBuilder();
    for (com.fasterxml.jackson.databind.JsonNode cell : executed.path("cells")) {
      for (com.fasterxml.jackson.databind.JsonNode output : cell.path("outputs")) {
        assertThat(output.path("output_type").asText()).as("output %s", output)
            .isNotEqualTo("error");
        output.path("text").forEach(t -> shown.append(t.asText()));
      }
    }
    String text = shown.toString().replaceAll("\u001b\\[[0-9;]*m", "");
    System.out.println("notebook:\n" + text.lines().filter(l -> !l.startsWith("Add to classpath"))
        .collect(Collectors.joining("\n")));
    // fairing4j came into the kernel's own cache from the release's repository.
    assertThat(text).contains("Add to classpath: " + kernel.resolve("mima_cache/dev/fairing4j/"
        + "sdk-deployer/" + VERSION + "/sdk-deployer-" + VERSION + ".jar"));
    assertThat(Files.readString(kernel.resolve("mima_cache/dev/fairing4j/sdk-core/" + VERSION
        + "/_remote.repositories"))).contains(">fairing4j-release=");
    assertThat(text).doesNotContain("SNAPSHOT").contains("[master-0] rank 0 of 2: sum=3")
        .contains("[worker-0] rank 1 of 2: sum=3").containsPattern("hello +PyTorchJob +Succeeded");
  }

  @Test
  @Order(7)
  void aJBangScriptDeclaresTheSdkWithDepsAndRunsAPyTorchJobLocally() throws Exception {
    Path dir = Files.createTempDirectory(OUT, "jbang");
    // JBang itself, from Maven Central (dev.jbang:jbang-cli; this module's build fetches it).
    String jbang = resolveArtifacts(dir.resolve("jbang-cli"), List.of(
        "dev.jbang:jbang-cli:" + System.getProperty("fairing4j.jbangVersion", "0.132.1")));
    Path repo = Files.createDirectories(dir.resolve("jbang-m2"));
    Path cache = Path.of(System.getProperty("user.home"), ".m2", "repository");
    Files.writeString(dir.resolve("hello.java"), adopter("""
        ///usr/bin/env jbang "$0" "$@" ; exit $?
        //JAVA 17+
        //REPOS fairing4j-release=%s,machine-cache=%s
        //DEPS dev.fairing4j:fairing4j-bom:%s@pom
        //DEPS dev.fairing4j:sdk-deployer
        //DEPS dev.fairing4j:sdk-builder
        """.formatted(OUT.resolve("repository").toUri(), cache.toUri(), VERSION), "hello",
        "jbang"));
    Map<String, String> env = new java.util.HashMap<>(ownState());
    env.putAll(Map.of("JBANG_REPO", repo.toString(), "JBANG_DIR",
        dir.resolve("jbang-home").toString(), "JBANG_NO_VERSION_CHECK", "true"));
    // What the jbang launcher script does: the jar prints the java command (exit 255) to run.
    Commands.Result prepared = run(dir, Duration.ofMinutes(3), List.of(Commands.jdkTool("java"), "-cp",
        jbang, "dev.jbang.Main", "run", "hello.java"), env);
    List<String> lines = prepared.output().lines().toList();
    assertThat(prepared.status()).as("jbang run:%n%s", tail(prepared.output())).isEqualTo(255);
    String command = lines.get(lines.size() - 1);
    assertThat(command).contains("sdk-deployer-" + VERSION + ".jar").doesNotContain("SNAPSHOT");
    Commands.Result script = run(dir, Duration.ofMinutes(5), List.of("bash", "-c", command), env);
    System.out.println("jbang hello.java:\n" + script.output());
    assertThat(script.status()).as("the script:%n%s", tail(script.output())).isZero();
    assertThat(script.output()).contains("[master-0] rank 0 of 2: sum=3")
        .contains("[worker-0] rank 1 of 2: sum=3").containsPattern("jbang +PyTorchJob +Succeeded");
    assertThat(Files.readString(repo.resolve("dev/fairing4j/sdk-deployer/" + VERSION
        + "/_remote.repositories"))).contains(">fairing4j-release=");
  }

  /**
   * japicmp against the release: the tree as the next patch version (0.1.1-SNAPSHOT) passes
   * unchanged, fails when a public method of sdk-core becomes package-private, and passes with
   * the same change as the next minor version (0.2.0-SNAPSHOT), which before 1.0 may break.
   */
  @Test
  @Order(8)
  void theApiCheckFailsOnAnIncompatibleChangeUnlessTheMinorVersionSaysSo() throws Exception {
    Path tree = OUT.resolve("api-next");
    Commands.Result copy = run(OUT, Duration.ofMinutes(2), List.of("bash", "-c",
        "rm -rf api-next && mkdir api-next && tar -C source --exclude=./target"
            + " --exclude='./sdk-*/target' -cf - . | tar -C api-next -xf -"), Map.of());
    assertThat(copy.status()).as(copy.output()).isZero();
    Path localRepo = Files.createDirectories(OUT.resolve("api-check-m2"));
    Path settings = OUT.resolve("api-check-settings.xml");
    Files.writeString(settings, settings(localRepo).replace("</settings>", """
          <profiles>
            <profile>
              <!-- Not "release": an active profile's id activates the POM's profile of that id. -->
              <id>fairing4j-release-repository</id>
              %s
            </profile>
          </profiles>
          <activeProfiles><activeProfile>fairing4j-release-repository</activeProfile></activeProfiles>
        </settings>""".formatted(releaseRepository())));

    setVersion(tree, VERSION, "0.1.1-SNAPSHOT");
    Commands.Result unchanged = apiCheck(tree, settings);
    assertThat(unchanged.status()).as("0.1.1-SNAPSHOT, unchanged:%n%s",
        tail(unchanged.output())).isZero();
    assertThat(Files.readString(tree.resolve("sdk-core/target/japicmp/api-compatibility.diff")))
        .as("japicmp compared with the release").contains("sdk-core-" + VERSION + ".jar");

    Path secret = tree.resolve("sdk-core/src/main/java/dev/fairing4j/core/Secret.java");
    String source = Files.readString(secret);
    assertThat(source).contains("  public static Secret of(char[] value)");
    Files.writeString(secret, source.replace("  public static Secret of(char[] value)",
        "  static Secret of(char[] value)"));
    Commands.Result broken = apiCheck(tree, settings);
    System.out.println("api check of a planted incompatible change:\n"
        + broken.output().lines().filter(l -> l.contains("japicmp") || l.contains("ERROR"))
            .limit(6).collect(Collectors.joining("\n")));
    assertThat(broken.status()).as("0.1.1-SNAPSHOT with Secret.of(char[]) package-private:%n%s",
        tail(broken.output())).isNotZero();
    assertThat(broken.output()).contains("dev.fairing4j.core.Secret")
        .contains("METHOD_LESS_ACCESSIBLE");

    setVersion(tree, "0.1.1-SNAPSHOT", "0.2.0-SNAPSHOT");
    Commands.Result minor = apiCheck(tree, settings);
    assertThat(minor.status()).as("0.2.0-SNAPSHOT with the same change:%n%s",
        tail(minor.output())).isZero();
    assertThat(minor.output()).contains("japicmp skipped");
  }

  private Commands.Result apiCheck(Path tree, Path settings) throws Exception {
    return run(tree, Duration.ofMinutes(5), List.of("mvn", "-B", "-ntp", "-s",
        settings.toString(), "-pl", "sdk-core", "-Dmaven.test.skip=true",
        "-Dmaven.javadoc.skip=true", "-Dmaven.source.skip=true", "verify"), Map.of());
  }

  private static void setVersion(Path tree, String from, String to) throws IOException {
    for (String pom : List.of("pom.xml", "bom.xml", "sdk-core/pom.xml", "sdk-builder/pom.xml",
        "sdk-deployer/pom.xml", "sdk-examples/pom.xml")) {
      Path file = tree.resolve(pom);
      Files.writeString(file, Files.readString(file).replace("<version>" + from + "</version>",
          "<version>" + to + "</version>"));
    }
  }

  /** The class path of fairing4j modules as Maven resolves them by their coordinates. */
  private String resolve(Path dir, String... modules) throws Exception {
    List<String> coordinates = new ArrayList<>();
    for (String module : modules) {
      coordinates.add("dev.fairing4j:" + module + ":" + VERSION);
    }
    String classpath = resolveArtifacts(dir, coordinates);
    assertThat(classpath).contains("sdk-deployer-" + VERSION + ".jar")
        .doesNotContain("SNAPSHOT").doesNotContain(ROOT.resolve("sdk-deployer/target")
            .toString());
    return classpath;
  }

  /** Resolves {@code coordinates} with Maven in a project of its own; returns the class path. */
  private String resolveArtifacts(Path dir, List<String> coordinates) throws Exception {
    Files.createDirectories(dir);
    Path localRepo = Files.createDirectories(dir.resolve("m2"));
    Files.writeString(dir.resolve("settings.xml"), settings(localRepo));
    StringBuilder dependencies = new StringBuilder();
    for (String gav : coordinates) {
      String[] parts = gav.split(":");
      dependencies.append("<dependency><groupId>").append(parts[0]).append("</groupId>")
          .append("<artifactId>").append(parts[1]).append("</artifactId><version>")
          .append(parts[2]).append("</version></dependency>\n");
    }
    Files.writeString(dir.resolve("pom.xml"), """
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>example</groupId>
          <artifactId>classpath</artifactId>
          <version>1</version>
          <packaging>pom</packaging>
        %s
          <dependencies>
        %s  </dependencies>
        </project>
        """.formatted(releaseRepository(), dependencies));
    Path classpath = dir.resolve("classpath.txt");
    Commands.Result build = run(dir, Duration.ofMinutes(3), List.of("mvn", "-B", "-ntp", "-s",
        "settings.xml", "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath",
        "-Dmdep.outputFile=" + classpath), Map.of());
    assertThat(build.status()).as("resolving %s:%n%s", coordinates, tail(build.output()))
        .isZero();
    return Files.readString(classpath).strip();
  }

  /**
   * A program as an adopter writes it: a 2-replica PyTorchJob on {@code Clusters.local()}, tied to
   * its JVM, followed to the end, its status table printed, then deleted.
   */
  private static String adopter(String header, String className, String jobName) {
    return header + """

        import dev.fairing4j.builder.Preprocessors;
        import dev.fairing4j.core.Fairing;
        import dev.fairing4j.core.TrainingJob;
        import dev.fairing4j.deployer.Clusters;
        import dev.fairing4j.deployer.Deployers;
        import java.time.Duration;

        public class %s {
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
                .deployer(Deployers.pyTorchJob("%s").workers(1).replaceExisting()
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
        """.formatted(className, jobName);
  }

  /**
   * The local clusters' state and claim directories of this test's own (the XDG variables an
   * adopter's JVM reads), so that its jobs meet no one else's: another checkout's test run on the
   * same machine uses the same job names.
   */
  private static Map<String, String> ownState() {
    return Map.of("XDG_STATE_HOME", OUT.resolve("xdg-state").toString(),
        "XDG_DATA_HOME", OUT.resolve("xdg-data").toString());
  }

  /** The POM lines that add the release's file repository, as an adopter adds a company's. */
  private static String releaseRepository() {
    return """
          <repositories>
            <repository>
              <id>fairing4j-release</id>
              <url>%s</url>
            </repository>
          </repositories>""".formatted(OUT.resolve("repository").toUri()).strip();
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
