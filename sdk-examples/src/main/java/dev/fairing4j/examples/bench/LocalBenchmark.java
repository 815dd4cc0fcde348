package dev.fairing4j.examples.bench;

import dev.fairing4j.builder.PrebuiltDependencies;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.local.LocalCluster;
import dev.fairing4j.examples.ExampleScripts;
import dev.fairing4j.examples.FashionMnist;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code scripts/bench.sh local}: what the local cluster costs over launching the same training by
 * hand. Runs one 2-rank DDP epoch on a FashionMNIST subset through {@code Clusters.local()} (the
 * front door: staging, sandboxes, operator environment, supervision, logs) and through the same
 * two Python processes started by a plain shell script, interleaved so machine noise hits both
 * alike, and prints the medians and their ratio as {@code bench.<name>=<value>} lines. The JVM's
 * own start is excluded: both are timed inside one warm JVM. Both run one copy of the script
 * that prints the time when Python starts it and when it ends on every rank, so each run splits
 * into start (the call to the last rank's first line), script (to the last rank's end) and end
 * (to the run seen ended), each printed against the plain launch's.
 *
 * <p>Then the edit loop: a one-line change of the script to the first training line on the
 * local cluster, with its breakdown ({@code bench.local.edit_to_first_log_ms}); and a
 * container's start with its requirements installed by pip at start against the same
 * requirements built into the image ({@code bench.local.deps.*}).
 *
 * <pre>usage: LocalBenchmark [rounds (default 5)] [samples (default 6000)]</pre>
 */
public final class LocalBenchmark {
  private static final double TARGET_RATIO = 1.05;
  private static final long TARGET_FIRST_LOG_MS = 3000;
  /** The first line of a marked script: the time Python started it. */
  private static final String PYTHON_MARK = "import time as _bench_time;"
      + " print('bench-mark python %.3f' % _bench_time.time(), flush=True)";

  private LocalBenchmark() {}

  /** Runs the benchmark and prints its figures. */
  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    int samples = args.length > 1 ? Integer.parseInt(args[1]) : 6000;
    Path work = Files.createTempDirectory("fairing4j-bench-local");
    // Both launches run the same copy of the bundled script, which prints the time when Python
    // starts it and when it ends, so each run splits into start, script and end.
    Path script = Files.createDirectories(work.resolve("ddp")).resolve(FashionMnist.SCRIPT);
    Files.write(script, marked(Files.readAllLines(ExampleScripts.extract(FashionMnist.SCRIPT))));
    LocalCluster cluster = Clusters.local().stateDir(work.resolve("state"))
        .volumesDir(work.resolve("volumes"));
    FashionMnist settings = new FashionMnist("bench-local", 1, samples, 1000, 1);

    // One unmeasured run of each warms the page cache and the JIT alike.
    runLocal(cluster, settings, script);
    runPlain(script, settings, work.resolve("plain-models"));

    List<long[]> local = new ArrayList<>();
    List<long[]> plain = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      // Alternate which goes first, so neither always runs on a warmer machine.
      if (round % 2 == 0) {
        local.add(runLocal(cluster, settings, script));
        plain.add(runPlain(script, settings, work.resolve("plain-models")));
      } else {
        plain.add(runPlain(script, settings, work.resolve("plain-models")));
        local.add(runLocal(cluster, settings, script));
      }
      System.out.printf(Locale.ROOT, "round %d: local %d ms (start %d, script %d, end %d),"
          + " plain %d ms (start %d, script %d, end %d)%n", round + 1, local.get(round)[0],
          local.get(round)[1], local.get(round)[2], local.get(round)[3], plain.get(round)[0],
          plain.get(round)[1], plain.get(round)[2], plain.get(round)[3]);
    }
    long localMedian = median(column(local, 0));
    long plainMedian = median(column(plain, 0));
    double ratio = (double) localMedian / plainMedian;
    System.out.println("bench.local.rounds=" + rounds);
    System.out.println("bench.local.samples=" + samples);
    System.out.println("bench.local.cluster_median_ms=" + localMedian);
    System.out.println("bench.local.plain_median_ms=" + plainMedian);
    System.out.printf(Locale.ROOT, "bench.local.ratio=%.3f (target <= %.2f: %s)%n", ratio,
        TARGET_RATIO, ratio <= TARGET_RATIO ? "PASS" : "MISS");
    String[] parts = {"start", "script", "end"};
    for (int part = 0; part < parts.length; part++) {
      System.out.printf(Locale.ROOT, "bench.local.%s_ms=%d (plain %d)%n", parts[part],
          median(column(local, part + 1)), median(column(plain, part + 1)));
    }

    editToFirstLog(work, cluster, rounds);
    dependencyStart(work, rounds);
  }

  // ---- dependencies: pip at every start against a layer built here --------------------------

  /** Debian's python3-pip-whl: a real local wheelhouse (pip and setuptools wheels). */
  private static final Path WHEELHOUSE = Path.of("/usr/share/python-wheels");

  /**
   * A container's start, from its command to the script's end, with a requirements file
   * installed by pip when the container starts (from a local wheelhouse; every start is a new
   * container, so every start installs) against the same requirements built into the image's
   * requirements layer on this machine ({@code prebuildRequirements}). The image's files are laid
   * out under a root first, untimed: pulling and unpacking the image is the runtime's part.
   */
  private static void dependencyStart(Path work, int rounds) throws Exception {
    String requirement = wheelRequirement();
    Path dir = Files.createDirectories(work.resolve("deps"));
    Path script = dir.resolve("train.py");
    Files.writeString(script, "import setuptools\nprint('setuptools', setuptools.__version__,"
        + " 'from', setuptools.__file__, flush=True)\n");
    Files.writeString(dir.resolve("requirements.txt"), requirement + "\n");
    PrebuiltDependencies how = PrebuiltDependencies.fromWheelhouse(WHEELHOUSE)
        .cacheDirectory(dir.resolve("site-packages-cache"));
    long prepareStart = System.nanoTime();
    BuildContext prebuilt = Preprocessors.python(script).requirements(Path.of("requirements.txt"))
        .prebuildRequirements(how).prepare();
    long prepareFirst = (System.nanoTime() - prepareStart) / 1_000_000;
    prepareStart = System.nanoTime();
    Preprocessors.python(script).requirements(Path.of("requirements.txt"))
        .prebuildRequirements(how).prepare();
    long prepareCached = (System.nanoTime() - prepareStart) / 1_000_000;
    BuildContext atStart = Preprocessors.python(script).requirements(Path.of("requirements.txt"))
        .prepare();
    Path prebuiltRoot = layOut(prebuilt, dir.resolve("root-prebuilt"));
    Path atStartRoot = layOut(atStart, dir.resolve("root-pip"));

    List<Long> withPip = new ArrayList<>();
    List<Long> withLayer = new ArrayList<>();
    for (int round = 0; round <= rounds; round++) {  // round 0 warms the page cache, unrecorded
      Path site = dir.resolve("tmp-site-" + round);  // a new container: an empty /tmp
      long pip = start(List.of("/bin/sh", atStartRoot + "/app/.fairing4j/bootstrap.sh",
          "/usr/bin/python3", "-u", atStartRoot + "/app/train.py"), Map.of(
          "FAIRING4J_REQUIREMENTS", atStartRoot + "/app/requirements.txt",
          "FAIRING4J_SITE_PACKAGES", site.toString(), "FAIRING4J_PYTHON", "/usr/bin/python3",
          "PIP_NO_INDEX", "1", "PIP_FIND_LINKS", WHEELHOUSE.toString()), site.toString());
      long layer = start(List.of("/usr/bin/python3", "-u", prebuiltRoot + "/app/train.py"),
          Map.of("PYTHONPATH", prebuiltRoot + PrebuiltDependencies.IMAGE_DIRECTORY),
          prebuiltRoot + PrebuiltDependencies.IMAGE_DIRECTORY);
      if (round > 0) {
        withPip.add(pip);
        withLayer.add(layer);
      }
    }
    System.out.println("bench.local.deps.requirements=" + requirement + " (wheelhouse "
        + WHEELHOUSE + ")");
    System.out.println("bench.local.deps.prebuilt_files=" + prebuilt.files().size());
    System.out.println("bench.local.deps.prepare_first_ms=" + prepareFirst);
    System.out.println("bench.local.deps.prepare_cached_ms=" + prepareCached);
    System.out.println("bench.local.deps.start_with_pip_ms=" + median(withPip));
    System.out.println("bench.local.deps.start_prebuilt_ms=" + median(withLayer));
  }

  /** {@code setuptools==<version>} of the wheel in the wheelhouse. */
  private static String wheelRequirement() throws IOException {
    try (var wheels = Files.list(WHEELHOUSE)) {
      String wheel = wheels.map(p -> p.getFileName().toString())
          .filter(name -> name.startsWith("setuptools-") && name.endsWith(".whl")).findFirst()
          .orElseThrow(() -> new IllegalStateException("no setuptools wheel in " + WHEELHOUSE
              + "; install it: apt-get install python3-pip-whl"));
      return "setuptools==" + wheel.split("-")[1];
    }
  }

  /** Writes the context's files under {@code root} at their container paths. */
  private static Path layOut(BuildContext context, Path root) throws IOException {
    for (var file : context.files().entrySet()) {
      Path target = root.resolve(file.getKey().substring(1));
      Files.createDirectories(target.getParent());
      try (var in = file.getValue().open()) {
        Files.copy(in, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      }
    }
    return root;
  }

  /** Runs a container's command to its end; fails unless the script found its package in it. */
  private static long start(List<String> command, Map<String, String> env, String expectedFrom)
      throws IOException, InterruptedException {
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().putAll(env);
    builder.environment().put("PYTHONDONTWRITEBYTECODE", "1");  // every start as the first
    long start = System.nanoTime();
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(),
        java.nio.charset.StandardCharsets.UTF_8);
    int exit = process.waitFor();
    long took = (System.nanoTime() - start) / 1_000_000;
    if (exit != 0 || !output.contains("from " + expectedFrom)) {
      throw new IllegalStateException("the start " + command + " failed (exit " + exit
          + ") or imported from elsewhere than " + expectedFrom + ":\n" + output);
    }
    return took;
  }

  // ---- edit -> first training log line ------------------------------------------------------

  /**
   * The edit loop on the local cluster: a one-line change of the training script, then
   * {@code run()}, until the first line the training prints (rank 0 of a 2-rank DDP job: "Using
   * distributed PyTorch ...") reaches the caller. The script is the bundled one with two
   * timestamps added (first statement, after the torch imports), which split the time into:
   * submit (edit to {@code run()} returning: preprocess, stage, hand to the supervisor), start
   * (to Python's first statement: sandbox, interpreter), torch import, and the script up to its
   * first line (arguments, process-group rendezvous) plus the log's way back.
   */
  private static void editToFirstLog(Path work, LocalCluster cluster, int rounds)
      throws Exception {
    Path dir = Files.createDirectories(work.resolve("edit"));
    Path script = dir.resolve("train.py");
    List<String> original = Files.readAllLines(ExampleScripts.extract("mnist_ddp.py"));
    FashionMnist settings = new FashionMnist("bench-edit", 1, 600, 100, 1);
    List<long[]> samples = new ArrayList<>();
    for (int round = 0; round <= rounds; round++) {  // round 0 warms up, unrecorded
      Files.write(script, instrumented(original, round));
      long edited = System.currentTimeMillis();
      long[] times = firstLog(cluster, settings, script);
      if (round > 0) {
        samples.add(new long[] {times[3] - edited, times[0] - edited, times[1] - times[0],
            times[2] - times[1], times[3] - times[2]});
        System.out.printf(Locale.ROOT, "edit round %d: %d ms (submit %d, start %d, torch import"
            + " %d, script to first line %d)%n", round, times[3] - edited, times[0] - edited,
            times[1] - times[0], times[2] - times[1], times[3] - times[2]);
      }
    }
    String[] names = {"edit_to_first_log_ms", "edit_to_first_log.submit_ms",
        "edit_to_first_log.start_ms", "edit_to_first_log.torch_import_ms",
        "edit_to_first_log.script_to_first_line_ms"};
    for (int i = 0; i < names.length; i++) {
      int column = i;
      long median = median(samples.stream().map(sample -> sample[column]).toList());
      if (i == 0) {
        System.out.printf(Locale.ROOT, "bench.local.%s=%d  # target <= %d: %s%n", names[i],
            median, TARGET_FIRST_LOG_MS, median <= TARGET_FIRST_LOG_MS ? "PASS" : "MISS");
      } else {
        System.out.printf(Locale.ROOT, "bench.local.%s=%d%n", names[i], median);
      }
    }
  }

  /**
   * {@code original} (the bundled training script) with a changed first line that prints the
   * time Python started it ({@code bench-mark python <seconds>}), and the time after torch's
   * imports ({@code bench-mark torch <seconds>}): the edit of one edit-loop round.
   */
  public static List<String> instrumented(List<String> original, int round) {
    List<String> lines = new ArrayList<>();
    lines.add(PYTHON_MARK + "  # edit " + round);
    for (String line : original) {
      lines.add(line);
      if (line.startsWith("from torch.utils.data.distributed import")) {
        lines.add("print('bench-mark torch %.3f' % _bench_time.time(), flush=True)");
      }
    }
    return lines;
  }

  /**
   * Runs the job and waits for its first training line; returns the wall-clock milliseconds at
   * which run() returned, Python started, torch was imported and the first line arrived.
   */
  private static long[] firstLog(LocalCluster cluster, FashionMnist settings, Path script)
      throws Exception {
    long[] times = new long[4];
    java.util.concurrent.CountDownLatch first = new java.util.concurrent.CountDownLatch(1);
    TrainingJob job = Fairing.pipeline().preprocessor(Preprocessors.python(script))
        .deployer(settings.deployer(cluster)).progress(ProgressListener.NONE).run();
    times[0] = System.currentTimeMillis();
    try (var logs = job.logs().replica("master-0").stream(line -> {
      String text = line.text();
      if (text.startsWith("bench-mark python ")) {
        times[1] = secondsToMillis(text);
      } else if (text.startsWith("bench-mark torch ")) {
        times[2] = secondsToMillis(text);
      } else if (first.getCount() > 0 && !text.isBlank()) {
        times[3] = System.currentTimeMillis();
        first.countDown();
      }
    })) {
      if (!first.await(2, TimeUnit.MINUTES)) {
        throw new IllegalStateException("no training line in 2 minutes: " + job.status());
      }
    } finally {
      job.delete();
    }
    return times;
  }

  /** The wall-clock milliseconds of a {@code bench-mark <what> <seconds>} line. */
  public static long secondsToMillis(String markLine) {
    return Math.round(Double.parseDouble(markLine.substring(markLine.lastIndexOf(' ') + 1))
        * 1000);
  }

  /**
   * The bundled script printing the time when Python starts it ({@code bench-mark python}) and
   * when its main returns ({@code bench-mark end}), on every rank.
   */
  private static List<String> marked(List<String> original) {
    List<String> lines = new ArrayList<>();
    lines.add(PYTHON_MARK);
    lines.addAll(original);
    lines.add("print('bench-mark end %.3f' % _bench_time.time(), flush=True)");
    return lines;
  }

  /**
   * A run's whole time and its parts, in milliseconds: from the call to the last rank's Python
   * start, from there to the last rank's end, and from there to the run seen ended.
   */
  private static long[] split(long startedMs, long endedMs, List<String> lines) {
    long python = 0;
    long end = 0;
    for (String line : lines) {
      int at = line.indexOf("bench-mark ");
      if (at < 0) {
        continue;
      }
      String[] parts = line.substring(at).trim().split(" ");
      long millis = secondsToMillis(line.trim());
      if (parts[1].equals("python")) {
        python = Math.max(python, millis);
      } else if (parts[1].equals("end")) {
        end = Math.max(end, millis);
      }
    }
    if (python == 0 || end == 0) {
      throw new IllegalStateException("a rank printed no bench-mark line: " + lines);
    }
    return new long[] {endedMs - startedMs, python - startedMs, end - python, endedMs - end};
  }

  private static List<Long> column(List<long[]> rows, int column) {
    return rows.stream().map(row -> row[column]).toList();
  }

  private static long[] runLocal(LocalCluster cluster, FashionMnist settings, Path script) {
    long start = System.currentTimeMillis();
    TrainingJob job = Fairing.pipeline().preprocessor(Preprocessors.python(script))
        .deployer(settings.deployer(cluster)).progress(ProgressListener.NONE).run();
    job.waitForCompletion(Duration.ofMinutes(30));
    long ended = System.currentTimeMillis();
    List<String> lines = job.logs().snapshot().stream().map(line -> line.text()).toList();
    job.delete();
    return split(start, ended, lines);
  }

  private static long[] runPlain(Path script, FashionMnist settings, Path models)
      throws IOException, InterruptedException {
    String python = "/usr/bin/python3";
    String args = String.join(" ", settings.scriptArgs()).replace(
        "--model-dir=" + FashionMnist.MODELS_PATH, "--model-dir=" + models);
    Path out0 = Files.createTempFile("fairing4j-bench-rank0", ".log");
    Path out1 = Files.createTempFile("fairing4j-bench-rank1", ".log");
    String shell = "export MASTER_ADDR=127.0.0.1 MASTER_PORT=" + freePort()
        + " WORLD_SIZE=2 PYTHONUNBUFFERED=1\n"
        + "RANK=0 " + python + " -u " + script + " " + args + " > " + out0 + " 2>&1 &\n"
        + "RANK=1 " + python + " -u " + script + " " + args + " > " + out1 + " 2>&1 &\n"
        + "wait\n";
    long start = System.currentTimeMillis();
    Process process = new ProcessBuilder("/bin/sh", "-c", shell).inheritIO().start();
    if (!process.waitFor(30, TimeUnit.MINUTES) || process.exitValue() != 0) {
      process.destroyForcibly();
      throw new IllegalStateException("the plain shell run failed: " + Files.readString(out0));
    }
    long ended = System.currentTimeMillis();
    List<String> lines = new ArrayList<>(Files.readAllLines(out0));
    lines.addAll(Files.readAllLines(out1));
    Files.delete(out0);
    Files.delete(out1);
    return split(start, ended, lines);
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The median of {@code values} (the mean of the middle two for an even count). */
  public static long median(List<Long> values) {
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int middle = sorted.size() / 2;
    return sorted.size() % 2 == 1 ? sorted.get(middle)
        : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
  }
}
