package dev.fairing4j.examples.bench;

import dev.fairing4j.builder.Builders;
import dev.fairing4j.builder.JibImageBuilder;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The build benchmark of {@code scripts/bench.sh build}: how long the edit loop of a training
 * script takes with fairing4j's Jib builder, against a large base in a local registry, and the
 * same loop done by {@code buildah} (chroot isolation) pushing to the same registry, with its
 * overlay storage driver where the kernel allows it (the best a daemonless builder gives) and
 * with vfs (what works everywhere).
 *
 * <p>Three scenarios, each timed in a warm JVM (several rounds, median) and in a fresh JVM (a child
 * {@code java} that runs one build): (a) the first build into a new repository, (b) a rebuild after
 * a one-line change of the script, (c) a rebuild with nothing changed. Bytes uploaded come from
 * the registry's access log ({@link RegistryAccessLog}), never from the builder's own counters.
 * Every figure is printed as a {@code bench.<name>=<value>} line; targets are printed beside the
 * figures they apply to with PASS or MISS, and a miss never fails the run: it measures, it does
 * not assert.
 *
 * <p>The script prepares everything this program needs (registry, base image, buildah storage)
 * and passes it as {@code --name=value} options; see {@code scripts/bench.sh}.
 */
public final class BuildBenchmark {
  private static final long TARGET_ONE_LINE_MS = 60;
  private static final double TARGET_RATIO = 20;
  private static final long TARGET_UNCHANGED_MS = 20;
  private static final long TARGET_FRESH_ONE_LINE_MS = 1000;
  private static final long TARGET_NEW_REPO_MS = 300;

  private final Map<String, String> options;
  private final String registry;
  private final String base;
  private final Path work;
  private final Path jibCache;
  private final String runId;
  private final RegistryAccessLog log;
  private final Map<String, Object> figures = new LinkedHashMap<>();
  private final long started = System.nanoTime();

  private BuildBenchmark(Map<String, String> options) {
    this.options = options;
    this.registry = required("registry");
    this.base = required("base");
    this.work = Path.of(required("work")).toAbsolutePath();
    this.jibCache = work.resolve("jib-cache");
    this.runId = Long.toString(System.currentTimeMillis() / 1000 % 1_000_000, 36);
    this.log = new RegistryAccessLog(Path.of(required("registry-log")), registry);
  }

  /**
   * {@code --registry=127.0.0.1:PORT --registry-log=FILE --base=REF --work=DIR} and optionally
   * {@code --rounds=N --fresh-rounds=N --buildah-rounds=N --buildah-root=DIR --time-budget-s=S}
   * (buildah rounds stop early rather than run past the budget); or
   * {@code one-build ENTRY BASE REPOSITORY CACHE} (what each fresh JVM runs).
   */
  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("one-build")) {
      oneBuild(args);
      return;
    }
    Map<String, String> options = new LinkedHashMap<>();
    for (String arg : args) {
      if (!arg.startsWith("--") || !arg.contains("=")) {
        throw new IllegalArgumentException("expected --name=value, got " + arg);
      }
      options.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
    }
    new BuildBenchmark(options).run();
  }

  private void run() throws Exception {
    Files.createDirectories(work);
    print("machine.cores", Runtime.getRuntime().availableProcessors());
    // a shared machine's other work shows in every figure: record how busy it was
    printLoad("start");
    print("base.image", base);
    options.entrySet().stream()
        .filter(e -> e.getKey().startsWith("base-") && !e.getValue().isBlank())
        .forEach(e -> print("base." + e.getKey().substring(5).replace('-', '_'), e.getValue()));
    int rounds = intOption("rounds", 5);
    jibWarm(rounds);
    jibNewRepository(rounds);
    jibFresh(intOption("fresh-rounds", 3));
    int buildahRounds = intOption("buildah-rounds", 3);
    if (options.containsKey("buildah-root") && buildahRounds > 0) {
      // overlay first: it is fast, and vfs (minutes per round) is the one the budget may cut
      Buildah overlay = new Buildah(Path.of(required("buildah-root")), "overlay");
      java.util.Optional<String> missing = overlay.unavailable();
      if (missing.isEmpty()) {
        buildah(overlay, "buildah_overlay", buildahRounds);
      } else {
        System.out.println("# note buildah_overlay: the overlay driver does not work here ("
            + missing.get() + "); only vfs is compared");
      }
      buildah(new Buildah(Path.of(required("buildah-root"))), "buildah", buildahRounds);
      long jib = (Long) figures.get("jib.warm.one_line_change_ms");
      long vfs = (Long) figures.get("buildah.one_line_change_ms");
      double ratio = jib == 0 ? Double.POSITIVE_INFINITY : (double) vfs / jib;
      printChecked("ratio.one_line_change_buildah_over_jib_warm",
          String.format(Locale.ROOT, "%.1f", ratio),
          ">= " + (int) TARGET_RATIO, ratio >= TARGET_RATIO);
      if (figures.containsKey("buildah_overlay.one_line_change_ms")) {
        long best = (Long) figures.get("buildah_overlay.one_line_change_ms");
        double bestRatio = jib == 0 ? Double.POSITIVE_INFINITY : (double) best / jib;
        printChecked("ratio.one_line_change_buildah_overlay_over_jib_warm",
            String.format(Locale.ROOT, "%.1f", bestRatio),
            ">= " + (int) TARGET_RATIO, bestRatio >= TARGET_RATIO);
      }
    }
    printLoad("end");
    print("run.elapsed_s", millisSince(started) / 1000);
  }

  // ---- Jib, warm JVM -------------------------------------------------------------------------

  private void jibWarm(int rounds) throws Exception {
    // An unrecorded round first: class loading, JIT and the first pull of the base into the
    // persistent layer cache belong to "cold", which the fresh-JVM figures cover.
    boolean cacheWasEmpty = !Files.isDirectory(jibCache) || isEmpty(jibCache);
    long warmUp = System.nanoTime();
    jibRound("w0", null);
    print("jib.warm.warm_up_round_ms", millisSince(warmUp));
    print("jib.base_layer_cache_was_empty", cacheWasEmpty);
    Samples first = new Samples();
    Samples change = new Samples();
    Samples unchanged = new Samples();
    for (int round = 1; round <= rounds; round++) {
      jibRound("w" + round, new Samples[] {first, change, unchanged});
    }
    report("jib.warm.first_build", first, null, null);
    report("jib.warm.one_line_change", change, "<= " + TARGET_ONE_LINE_MS,
        median -> median <= TARGET_ONE_LINE_MS);
    report("jib.warm.unchanged", unchanged, "<= " + TARGET_UNCHANGED_MS + " and 0 bytes",
        median -> median <= TARGET_UNCHANGED_MS && unchanged.noBytes());
    change.profile.forEach((step, ms) -> System.out.println(
        "# profile jib.warm.one_line_change (last round): " + step + " " + ms + " ms"));
  }

  /** One round of (a), (b), (c) into a new repository; {@code into} null: not recorded. */
  private void jibRound(String name, Samples[] into) throws Exception {
    Path app = Files.createDirectories(work.resolve("apps").resolve("jib-" + runId + "-" + name));
    Path script = app.resolve("train.py");
    String repository = registry + "/bench/jib-" + runId + "-" + name;
    JibImageBuilder builder = Builders.jib(base).pushTo(repository).baseLayerCache(jibCache);
    Files.writeString(script, TrainingScript.text(runId + "-" + name, 0));
    timeJib(builder, script, into == null ? null : into[0]);
    Files.writeString(script, TrainingScript.text(runId + "-" + name, 1));
    timeJib(builder, script, into == null ? null : into[1]);
    timeJib(builder, script, into == null ? null : into[2]);
  }

  private void timeJib(JibImageBuilder builder, Path script, Samples into) throws Exception {
    // Jib reports from its own threads
    Map<String, Long> steps = java.util.Collections.synchronizedMap(new LinkedHashMap<>());
    ProgressListener listener = event -> {
      if (event instanceof ProgressEvent.StepFinished done) {
        steps.merge(done.step(), done.took().toMillis(), Long::sum);
      }
    };
    log.mark();
    long start = System.nanoTime();
    long prepareStart = start;
    BuildContext context = Preprocessors.python(script).prepare();
    steps.put("prepare (preprocessor)", millisSince(prepareStart));
    ImageRef image = builder.build(context, listener);
    long millis = millisSince(start);
    RegistryAccessLog.Uploads uploads = log.uploadsSinceMark();
    if (image.digest().isEmpty()) {
      throw new IllegalStateException("no digest for " + image);
    }
    if (into != null) {
      into.add(millis, uploads);
      into.profile = steps;
    }
  }

  // ---- Jib, warm JVM, new repository with nothing cached ------------------------------------

  /**
   * The first build into a new repository of the base's registry, in a warm JVM but with an
   * empty base-layer cache (nothing on this machine knows the base yet): whatever moves of the
   * base shows in the registry's log, as downloads (GET of a base layer) or uploads of a base
   * layer into the new repository.
   */
  private void jibNewRepository(int rounds) throws Exception {
    Map<String, Long> baseLayers = baseLayers();
    Samples samples = new Samples();
    long downloaded = 0;
    long uploaded = 0;
    for (int round = 1; round <= rounds; round++) {
      String name = "n" + round;
      Path app = Files.createDirectories(work.resolve("apps").resolve("jib-" + runId + "-" + name));
      Path script = app.resolve("train.py");
      Files.writeString(script, TrainingScript.text(runId + "-" + name, 0));
      Path emptyCache = work.resolve("empty-caches").resolve(runId + "-" + name).resolve("jib");
      JibImageBuilder builder = Builders.jib(base).pushTo(registry + "/bench/jib-" + runId + "-"
          + name).baseLayerCache(emptyCache);
      timeJib(builder, script, samples);
      RegistryAccessLog.Uploads up = samples.lastUploads;
      downloaded = Math.max(downloaded, up.downloads().entrySet().stream()
          .filter(e -> baseLayers.containsKey(e.getKey())).mapToLong(Map.Entry::getValue).sum());
      uploaded = Math.max(uploaded, up.uploadedDigests().stream()
          .filter(baseLayers::containsKey).mapToLong(baseLayers::get).sum());
    }
    report("jib.new_repo.first_build", samples, "<= " + TARGET_NEW_REPO_MS,
        median -> median <= TARGET_NEW_REPO_MS);
    // the worst round: a single download is what the target forbids
    printChecked("jib.new_repo.base_bytes_downloaded", downloaded, "0", downloaded == 0);
    printChecked("jib.new_repo.base_bytes_uploaded", uploaded, "0", uploaded == 0);
  }

  /** The base's layers (digest to size), from its manifest in the registry. */
  private Map<String, Long> baseLayers() throws Exception {
    String[] parts = base.substring(registry.length() + 1).split(":", 2);
    var response = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest
            .newBuilder(java.net.URI.create("http://" + registry + "/v2/" + parts[0]
                + "/manifests/" + parts[1]))
            .header("Accept", "application/vnd.docker.distribution.manifest.v2+json,"
                + "application/vnd.oci.image.manifest.v1+json").build(),
        java.net.http.HttpResponse.BodyHandlers.ofByteArray());
    Map<String, Long> layers = new LinkedHashMap<>();
    new com.fasterxml.jackson.databind.ObjectMapper().readTree(response.body()).path("layers")
        .forEach(layer -> layers.put(layer.path("digest").asText(),
            layer.path("size").asLong()));
    if (layers.isEmpty()) {
      throw new IllegalStateException("no layers in the manifest of " + base);
    }
    return layers;
  }

  // ---- Jib, fresh JVM ------------------------------------------------------------------------

  private void jibFresh(int rounds) throws Exception {
    jibFresh(rounds, "jib.fresh", List.of());
    // The same with a class-data sharing archive of the SDK's class path, made by one untimed
    // build (the user step README describes): the JVM maps the classes instead of loading them.
    if (System.getProperty("java.class.path").split(java.io.File.pathSeparator).length > 0
        && java.util.Arrays.stream(System.getProperty("java.class.path")
            .split(java.io.File.pathSeparator)).allMatch(entry -> entry.endsWith(".jar"))) {
      Path archive = Files.createDirectories(work.resolve("cds")).resolve("fairing4j-" + runId
          + ".jsa");
      Path app = Files.createDirectories(work.resolve("apps").resolve("jib-" + runId + "-cds"));
      Files.writeString(app.resolve("train.py"), TrainingScript.text(runId + "-cds", 0));
      freshBuild(app.resolve("train.py"), registry + "/bench/jib-" + runId + "-cds",
          new Samples(), new Samples(), List.of("-XX:ArchiveClassesAtExit=" + archive));
      jibFresh(rounds, "jib.fresh_cds", List.of("-XX:SharedArchiveFile=" + archive));
    } else {
      System.out.println("# note jib.fresh_cds: the class path holds directories, which a CDS"
          + " archive cannot cover (scripts/bench.sh runs on jars)");
    }
  }

  private void jibFresh(int rounds, String prefix, List<String> jvmOptions) throws Exception {
    Samples first = new Samples();
    Samples change = new Samples();
    Samples unchanged = new Samples();
    Samples firstInside = new Samples();
    Samples changeInside = new Samples();
    Samples unchangedInside = new Samples();
    String kind = prefix.equals("jib.fresh") ? "f" : "c";
    List<PerfData.Figures> changeFigures = new ArrayList<>();
    for (int round = 1; round <= rounds; round++) {
      String name = kind + round;
      Path app = Files.createDirectories(work.resolve("apps").resolve("jib-" + runId + "-" + name));
      Path script = app.resolve("train.py");
      String repository = registry + "/bench/jib-" + runId + "-" + name;
      Files.writeString(script, TrainingScript.text(runId + "-" + name, 0));
      freshBuild(script, repository, first, firstInside, jvmOptions);
      Files.writeString(script, TrainingScript.text(runId + "-" + name, 1));
      changeFigures.add(freshBuild(script, repository, change, changeInside, jvmOptions));
      freshBuild(script, repository, unchanged, unchangedInside, jvmOptions);
    }
    report(prefix + ".first_build", first, null, null);
    print(prefix + ".first_build_in_jvm_ms", firstInside.medianMillis());
    report(prefix + ".one_line_change", change, "<= " + TARGET_FRESH_ONE_LINE_MS,
        median -> median <= TARGET_FRESH_ONE_LINE_MS);
    print(prefix + ".one_line_change_in_jvm_ms", changeInside.medianMillis());
    // What class loading costs the edit: the figures the fresh JVM's counters saved at exit.
    print(prefix + ".one_line_change_classes_loaded",
        PerfData.median(changeFigures, PerfData.Figures::classesLoaded));
    print(prefix + ".one_line_change_clinit_ms",
        PerfData.median(changeFigures, PerfData.Figures::clinitMillis));
    report(prefix + ".unchanged", unchanged, "0 bytes", median -> unchanged.noBytes());
    print(prefix + ".unchanged_in_jvm_ms", unchangedInside.medianMillis());
  }

  /** Times a child JVM from launch to exit; {@code inside} gets the time it measured itself. */
  private PerfData.Figures freshBuild(Path script, String repository, Samples whole,
      Samples inside, List<String> jvmOptions) throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"),
        "bin", "java").toString()));
    command.addAll(jvmOptions);
    Path counters = work.resolve("fresh-" + System.nanoTime() + ".hsperf");
    command.addAll(PerfData.saveTo(counters));
    command.addAll(List.of("-cp", System.getProperty("java.class.path"),
        "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", BuildBenchmark.class.getName(),
        "one-build", script.toString(), base, repository, jibCache.toString()));
    log.mark();
    long start = System.nanoTime();
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int exit = process.waitFor();
    long millis = millisSince(start);
    RegistryAccessLog.Uploads uploads = log.uploadsSinceMark();
    if (exit != 0) {
      throw new IllegalStateException("fresh JVM build failed (exit " + exit + "):\n" + output);
    }
    whole.add(millis, uploads);
    inside.add(Long.parseLong(output.replaceAll("(?s).*build_ms=(\\d+).*", "$1")), uploads);
    return PerfData.read(counters);
  }

  /** A fresh JVM's single build: prints {@code build_ms=} (preprocess + build + push). */
  private static void oneBuild(String[] args) {
    long start = System.nanoTime();
    BuildContext context = Preprocessors.python(Path.of(args[1])).prepare();
    ImageRef image = Builders.jib(args[2]).pushTo(args[3]).baseLayerCache(Path.of(args[4]))
        .build(context, ProgressListener.NONE);
    System.out.println("build_ms=" + millisSince(start));
    System.out.println("image=" + image.reference());
  }

  // ---- buildah -------------------------------------------------------------------------------

  private void buildah(Buildah buildah, String prefix, int rounds) throws Exception {
    buildah.removeContainers();
    long warmUp = System.nanoTime();
    // Untimed warm-up, so the loop starts as warm as Jib's: the base is already in buildah's
    // storage (committed there); the pull names it by this run's registry address. buildah mounts
    // the base into a new repository only when its blob-info cache saw the layer at this address
    // (the script keeps the registry's port between runs for that); otherwise the first round
    // uploads the base, and the "uploads differed" note below says so.
    buildah.run("pull", "--tls-verify=false", "-q", base);
    print(prefix + ".warm_up_ms", millisSince(warmUp));
    Samples first = new Samples();
    Samples change = new Samples();
    Samples unchanged = new Samples();
    Samples changeBuild = new Samples();
    Samples changePush = new Samples();
    long budgetMillis = intOption("time-budget-s", Integer.MAX_VALUE / 1000) * 1000L;
    long longestRound = 0;
    for (int round = 1; round <= rounds; round++) {
      // vfs copies the whole base for every build, so a round takes from seconds to minutes,
      // depending on the disk and on what else the machine does; stop before one would overrun
      // the script's time bound (allowing half again the longest round so far).
      if (round > 1 && millisSince(started) + longestRound * 3 / 2 > budgetMillis) {
        System.out.println("# note " + prefix + ": stopped after " + (round - 1) + " of " + rounds
            + " rounds to stay within the time budget (--time-budget-s)");
        break;
      }
      long roundStart = System.nanoTime();
      String name = "b" + round;
      Path app = Files.createDirectories(work.resolve("apps").resolve(prefix + "-" + runId + "-"
          + name));
      Files.writeString(app.resolve("Containerfile"), "FROM " + base + "\n"
          + "COPY train.py /app/\n"
          + "WORKDIR /app\n"
          + "ENTRYPOINT [\"python3\", \"-u\", \"/app/train.py\"]\n");
      String repository = registry + "/bench/" + prefix.replace('_', '-') + "-" + runId + "-"
          + name;
      Files.writeString(app.resolve("train.py"), TrainingScript.text(runId + "-" + name, 0));
      buildahOnce(buildah, app, repository + ":1", first, null, null);
      Files.writeString(app.resolve("train.py"), TrainingScript.text(runId + "-" + name, 1));
      buildahOnce(buildah, app, repository + ":2", change, changeBuild, changePush);
      buildahOnce(buildah, app, repository + ":3", unchanged, null, null);
      longestRound = Math.max(longestRound, millisSince(roundStart));
    }
    report(prefix + ".first_build", first, null, null);
    report(prefix + ".one_line_change", change, null, null);
    print(prefix + ".one_line_change_build_ms", changeBuild.medianMillis());
    print(prefix + ".one_line_change_push_ms", changePush.medianMillis());
    report(prefix + ".unchanged", unchanged, null, null);
  }

  private void buildahOnce(Buildah buildah, Path app, String tag, Samples whole, Samples build,
      Samples push) throws Exception {
    log.mark();
    long start = System.nanoTime();
    buildah.run("bud", "--isolation", "chroot", "--tls-verify=false", "-q", "-f",
        app.resolve("Containerfile").toString(), "-t", tag, app.toString());
    long built = System.nanoTime();
    buildah.run("push", "--tls-verify=false", "-q", tag, "docker://" + tag);
    long end = System.nanoTime();
    RegistryAccessLog.Uploads uploads = log.uploadsSinceMark();
    whole.add((end - start) / 1_000_000, uploads);
    if (build != null) {
      build.add((built - start) / 1_000_000, uploads);
      push.add((end - built) / 1_000_000, uploads);
    }
    // vfs keeps a full copy of the base per image: drop it (untimed) so runs do not fill the disk
    buildah.run("rmi", tag);
  }

  // ---- output --------------------------------------------------------------------------------

  private void report(String name, Samples samples, String target,
      java.util.function.LongPredicate check) {
    long median = samples.medianMillis();
    if (target == null) {
      print(name + "_ms", median);
    } else {
      printChecked(name + "_ms", median, target, check.test(median));
    }
    print(name + "_ms.samples", samples.millis);
    RegistryAccessLog.Uploads up = samples.lastUploads;
    print(name + "_bytes_uploaded", up.bytes());
    print(name + "_blobs_uploaded", up.blobs());
    print(name + "_blob_bytes_uploaded", up.blobBytes());
    print(name + "_manifests_uploaded", up.manifests());
    print(name + "_blobs_mounted", up.mounts());
    print(name + "_requests", up.requests());
    if (!samples.sameUploads()) {
      System.out.println("# note " + name + ": uploads differed between rounds: "
          + samples.uploads);
    }
  }

  private void printLoad(String when) {
    print("machine.load_average_1m_at_" + when, String.format(Locale.ROOT, "%.2f",
        java.lang.management.ManagementFactory.getOperatingSystemMXBean()
            .getSystemLoadAverage()));
  }

  private void print(String name, Object value) {
    figures.put(name, value);
    System.out.println("bench." + name + "=" + value);
    System.out.flush();
  }

  private void printChecked(String name, Object value, String target, boolean pass) {
    figures.put(name, value);
    System.out.println("bench." + name + "=" + value + "  # target " + target + ": "
        + (pass ? "PASS" : "MISS"));
    System.out.flush();
  }

  private String required(String name) {
    String value = options.get(name);
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException("missing --" + name + "=...");
    }
    return value;
  }

  private int intOption(String name, int fallback) {
    return Integer.parseInt(options.getOrDefault(name, Integer.toString(fallback)));
  }

  private static long millisSince(long nanoStart) {
    return (System.nanoTime() - nanoStart) / 1_000_000;
  }

  private static boolean isEmpty(Path directory) throws IOException {
    try (var entries = Files.list(directory)) {
      return entries.findAny().isEmpty();
    }
  }

  /** The timings of one scenario over its rounds, with what each round uploaded. */
  private static final class Samples {
    final List<Long> millis = new ArrayList<>();
    final List<RegistryAccessLog.Uploads> uploads = new ArrayList<>();
    RegistryAccessLog.Uploads lastUploads;
    Map<String, Long> profile = Map.of();

    void add(long ms, RegistryAccessLog.Uploads up) {
      millis.add(ms);
      uploads.add(up);
      lastUploads = up;
    }

    long medianMillis() {
      List<Long> sorted = new ArrayList<>(millis);
      sorted.sort(null);
      int n = sorted.size();
      return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** Whether no round uploaded anything. */
    boolean noBytes() {
      return uploads.stream().allMatch(u -> u.bytes() == 0);
    }

    /** Whether every round uploaded the same number of blobs and manifests. */
    boolean sameUploads() {
      return uploads.stream().map(u -> u.blobs() + "/" + u.manifests()).distinct().count() <= 1;
    }
  }
}
