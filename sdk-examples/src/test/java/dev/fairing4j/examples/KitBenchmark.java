package dev.fairing4j.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fairing4j.builder.Builders;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.examples.bench.LocalBenchmark;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code scripts/bench.sh kit [ROUNDS]}: the warm edit loop on the cluster kit
 * ({@code ../shared/k8s/cluster}), a one-line edit of the README's training script
 * ({@code mnist_ddp.py}) to its first training line as the SDK's log stream delivers it, for a
 * PyTorchJob of 1 Master + 3 Workers and a batch Job on a kit with the v1 operator, and a 2-node
 * TrainJob on a kit with Trainer v2 (the kinds the running kit serves; the others are named with
 * the command that brings their kit up).
 *
 * <p>Each round changes the script's first line, builds the code layer with Jib onto the torch
 * base in a warm JVM, pushes it to the kit's registry, submits, follows every replica's log and
 * deletes the job once the first training line is in. The time is split at the points a
 * user waits for, each the moment it was first seen, with millisecond resolution, for the last
 * pod to reach it (a DDP rank's first line waits for every rank):
 * <ul>
 *   <li>built: Jib's build and push done ({@code build image} ended);
 *   <li>created: {@code run()} returned, the job object created;
 *   <li>pods: the operator (or JobSet and the Job controller) created the pods, from a pod watch;
 *   <li>scheduled: the scheduler bound them ({@code spec.nodeName}, same watch);
 *   <li>pulled: the kubelet's {@code Pulled} event for the training container, from an event
 *       watch (the pull time the kubelet reports is printed beside it); after the init
 *       containers (the operator's wait for the Master's name);
 *   <li>python: the interpreter ran the script's first line (it prints {@code time.time()}; the
 *       pods share this machine's clock);
 *   <li>imports: torch imported (the script prints the time after its imports);
 *   <li>first line: the first training line reached the SDK's stream.
 * </ul>
 * Beside the chain, when the pods' status showed the init containers ended and the training
 * container running: the kubelet posts status some time after the fact, so these lag the
 * script's own clock. The objects' own timestamps ({@code creationTimestamp},
 * {@code startedAt}, conditions) have whole seconds, too coarse for a loop of a few seconds; the
 * watches read the same fields as they change. Round 0 warms the JVM, the node's image cache and
 * the page cache and is not counted. Medians of the rounds and their spread (min-max) are printed
 * as {@code bench.kit.*} lines.
 */
public final class KitBenchmark {
  private static final String DATA = "fashion-mnist";
  private static final double TARGET_PYTORCHJOB_S = 2.5;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern PULLED_IN = Pattern.compile(
      "Successfully pulled image .* in ([0-9.]+)(ms|s) ");
  /** The points in the order a job passes them, each timed where it happens. */
  private static final List<String> POINTS = List.of("built", "created", "pods", "scheduled",
      "pulled", "python", "imports", "first_line");
  /**
   * Points read from the pods' status, which the kubelet posts some time after the fact (the
   * script's own clock shows Python running before the status says the container is): printed
   * beside the chain, not in it.
   */
  private static final List<String> SEEN = List.of("init_seen", "started_seen");

  private KitBenchmark() {}

  /** Runs the benchmark on the kit of {@code FAIRING4J_CLUSTER_KUBECONFIG}. */
  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    ClusterKit kit = ClusterKit.get();
    String namespace = kit.namespace();
    kit.hostPathClaim(namespace, DATA, Tools.fashionMnist().toString());
    String base = kit.base().reference();
    boolean operator = kit.run(List.of("get", "validatingwebhookconfiguration",
        "validator.training-operator.kubeflow.org")).status() == 0;
    boolean trainer = kit.run(List.of("get", "clustertrainingruntime", "torch-distributed"))
        .status() == 0;
    System.out.println("bench.kit.rounds=" + rounds);
    try (Watches watches = Watches.start(kit, namespace)) {
      if (operator) {
        measure("pytorchjob", rounds, kit, base, watches, name -> Deployers.pyTorchJob(name)
            .workers(3), TARGET_PYTORCHJOB_S);
        measure("job", rounds, kit, base, watches, Deployers::batchJob, 0);
      } else {
        System.out.println("bench.kit.pytorchjob=not measured: this kit runs no v1 operator;"
            + " bring it up with KUBECONFIG=$(../shared/k8s/cluster/up.sh | tail -1)");
        System.out.println("bench.kit.job=not measured: measured on the kit with the operator");
      }
      if (trainer) {
        measure("trainjob", rounds, kit, base, watches, name -> Deployers.trainJob(name)
            .numNodes(2), 0);
      } else {
        System.out.println("bench.kit.trainjob=not measured: this kit runs no Trainer v2; bring"
            + " it up with KUBECONFIG=$(OPERATOR=0 ../shared/k8s/cluster/up.sh | tail -1);"
            + " ../shared/k8s/trainer-v2/up.sh");
      }
    }
  }

  private static void measure(String kind, int rounds, ClusterKit kit, String base,
      Watches watches, Function<String, JobDeployer<?>> deployer,
      double targetSeconds) throws Exception {
    Path dir = Files.createTempDirectory("fairing4j-bench-kit-" + kind);
    Path script = dir.resolve(FashionMnist.SCRIPT);
    List<String> original = Files.readAllLines(ExampleScripts.extract(FashionMnist.SCRIPT));
    List<Map<String, Long>> samples = new ArrayList<>();
    List<Long> pullReported = new ArrayList<>();
    for (int round = 0; round <= rounds; round++) {
      Files.write(script, LocalBenchmark.instrumented(original, round));
      String name = "edit-" + kind + "-" + round;
      Round measured = runRound(kit, base, watches, script, name,
          deployer.apply(name));
      if (round == 0) {
        System.out.println("bench.kit." + kind + ".warmup_ms=" + measured.points()
            .get("first_line"));
        continue;
      }
      samples.add(measured.points());
      measured.pullReportedMs().ifPresent(pullReported::add);
      StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%s round %d: %d ms",
          kind, round, measured.points().get("first_line")));
      for (String point : POINTS) {
        Long at = measured.points().get(point);
        if (at != null) {
          line.append(String.format(Locale.ROOT, ", %s +%d", point,
              at - previousPoint(measured.points(), point)));
        }
      }
      if (measured.pythonByReplica().size() > 1) {
        line.append("; python started at ").append(measured.pythonByReplica());
      }
      System.out.println(line);
    }
    // Medians per point since the edit, and the phase each point ends (median of the rounds'
    // differences, not the difference of medians, so phases add up round by round).
    for (String point : POINTS) {
      List<Long> at = at(samples, point);
      if (at.isEmpty()) {
        System.out.println("bench.kit." + kind + "." + point + "=none (this kind has no such"
            + " step)");
        continue;
      }
      List<Long> phase = new ArrayList<>();
      for (Map<String, Long> sample : samples) {
        if (sample.containsKey(point)) {
          phase.add(sample.get(point) - previousPoint(sample, point));
        }
      }
      System.out.printf(Locale.ROOT, "bench.kit.%s.%s_ms=%d (phase %d, spread %d-%d)%n", kind,
          point, LocalBenchmark.median(at), LocalBenchmark.median(phase),
          Collections.min(phase), Collections.max(phase));
    }
    for (String point : SEEN) {
      List<Long> at = at(samples, point);
      System.out.println("bench.kit." + kind + "." + point + "_ms=" + (at.isEmpty()
          ? "none (this kind has no such step)"
          : LocalBenchmark.median(at) + " (as the pods' status shows it)"));
    }
    List<Long> total = at(samples, "first_line");
    long median = LocalBenchmark.median(total);
    String verdict = targetSeconds <= 0 ? "" : String.format(Locale.ROOT,
        "  # target <= %.1f s: %s", targetSeconds,
        median <= targetSeconds * 1000 ? "PASS" : "MISS");
    System.out.printf(Locale.ROOT, "bench.kit.%s.edit_to_first_line_ms=%d (spread %d-%d)%s%n",
        kind, median, Collections.min(total), Collections.max(total), verdict);
    if (!pullReported.isEmpty()) {
      System.out.println("bench.kit." + kind + ".pull_reported_by_kubelet_ms="
          + LocalBenchmark.median(pullReported));
    }
  }

  /** The rounds' times of {@code point}, in the rounds that had it. */
  private static List<Long> at(List<Map<String, Long>> samples, String point) {
    return samples.stream().filter(s -> s.containsKey(point)).map(s -> s.get(point)).toList();
  }

  private static long previousPoint(Map<String, Long> sample, String point) {
    long previous = 0;
    for (String candidate : POINTS) {
      if (candidate.equals(point)) {
        return previous;
      }
      if (sample.containsKey(candidate)) {
        previous = sample.get(candidate);
      }
    }
    return previous;
  }

  /** What one round measured: milliseconds since the edit per point, and the kubelet's pull. */
  private record Round(Map<String, Long> points, Optional<Long> pullReportedMs,
      Map<String, Long> pythonByReplica) {}

  private static Round runRound(ClusterKit kit, String base, Watches watches, Path script,
      String name, JobDeployer<?> deployer) throws Exception {
    Timeline timeline = watches.follow(name);
    Map<String, Long> marks = new ConcurrentHashMap<>();
    CountDownLatch first = new CountDownLatch(1);
    long[] built = new long[1];
    long edited = System.currentTimeMillis();
    TrainingJob job = Fairing.pipeline()
        .preprocessor(Preprocessors.python(script))
        .builder(Builders.jib(base).pushTo(ClusterKit.repository("bench-kit")))
        .deployer(deployer.namespace(ClusterKit.NAMESPACE)
            .args(new FashionMnist(name, 1, 600, 100, 1).scriptArgs())
            .mutate(Mutators.pvc(DATA, FashionMnist.DATA_DIR).readOnly())
            .on(kit.cluster()))
        .progress(event -> {
          if (event instanceof ProgressEvent.StepFinished step
              && step.step().equals("build image")) {
            built[0] = System.currentTimeMillis();
          }
        })
        .run();
    long created = System.currentTimeMillis();
    try (LogStream logs = job.logs().stream(line -> {
      String text = line.text();
      if (text.startsWith("bench-mark ")) {
        String[] parts = text.split(" ");
        long at = LocalBenchmark.secondsToMillis(text);
        marks.merge(parts[1], at, Math::max);
        marks.put(parts[1] + "@" + line.replica(), at);
      } else if (first.getCount() > 0 && !text.isBlank()) {
        // Every DDP rank prints its first line once the ranks have met: whichever comes first.
        marks.put("first_line", System.currentTimeMillis());
        first.countDown();
      }
    })) {
      if (!first.await(3, TimeUnit.MINUTES)) {
        throw new IllegalStateException(name + ": no training line in 3 minutes: "
            + job.status());
      }
    } finally {
      watches.stop(name);
      job.delete();
    }
    Map<String, Long> points = new LinkedHashMap<>();
    points.put("built", built[0] - edited);
    points.put("created", created - edited);
    timeline.last("pods").ifPresent(t -> points.put("pods", t - edited));
    timeline.last("scheduled").ifPresent(t -> points.put("scheduled", t - edited));
    timeline.last("pulled").ifPresent(t -> points.put("pulled", t - edited));
    for (String seen : SEEN) {
      timeline.last(seen).ifPresent(t -> points.put(seen, t - edited));
    }
    if (marks.containsKey("python")) {
      points.put("python", marks.get("python") - edited);
    }
    if (marks.containsKey("torch")) {
      points.put("imports", marks.get("torch") - edited);
    }
    points.put("first_line", marks.get("first_line") - edited);
    Map<String, Long> ranks = new java.util.TreeMap<>();
    marks.forEach((mark, at) -> {
      if (mark.startsWith("python@")) {
        ranks.put(mark.substring("python@".length()), at - edited);
      }
    });
    return new Round(points, timeline.pullReported(), ranks);
  }

  /**
   * When each pod of one job reached each point, as the watches saw it: per point, per pod, the
   * first time. A point's time for the job is its last pod's.
   */
  private static final class Timeline {
    private final Map<String, Map<String, Long>> seen = new ConcurrentHashMap<>();
    private volatile Long pullReported;

    void saw(String point, String pod) {
      seen.computeIfAbsent(point, p -> new ConcurrentHashMap<>())
          .putIfAbsent(pod, System.currentTimeMillis());
    }

    Optional<Long> last(String point) {
      Map<String, Long> pods = seen.get(point);
      return pods == null || pods.isEmpty() ? Optional.empty()
          : Optional.of(Collections.max(pods.values()));
    }

    Optional<Long> pullReported() {
      return Optional.ofNullable(pullReported);
    }

    void pulled(long millis) {
      pullReported = pullReported == null ? millis : Math.max(pullReported, millis);
    }
  }

  /**
   * A pod watch and an event watch on the namespace ({@code kubectl get -w}, the test's own eye
   * on the cluster), started once and handing what they see to the timeline of the job whose
   * name the pod starts with.
   */
  private static final class Watches implements AutoCloseable {
    private final List<Process> processes;
    private final Map<String, Timeline> jobs = new ConcurrentHashMap<>();

    private Watches(List<Process> processes) {
      this.processes = processes;
    }

    static Watches start(ClusterKit kit, String namespace) throws InterruptedException {
      Process pods = kit.start(List.of("get", "pods", "-n", namespace, "-w", "--watch-only",
          "-o", "json"));
      Process events = kit.start(List.of("get", "events", "-n", namespace, "-w",
          "--watch-only", "-o", "json"));
      Watches watches = new Watches(List.of(pods, events));
      reader("pod watch", pods.getInputStream(), watches::pod);
      reader("event watch", events.getInputStream(), watches::event);
      // kubectl needs a moment to open its watches; a round before that would miss its pods.
      Thread.sleep(2000);
      return watches;
    }

    Timeline follow(String job) {
      Timeline timeline = new Timeline();
      jobs.put(job, timeline);
      return timeline;
    }

    void stop(String job) {
      jobs.remove(job);
    }

    private Optional<Timeline> of(String pod) {
      return jobs.entrySet().stream().filter(e -> pod.startsWith(e.getKey() + "-"))
          .map(Map.Entry::getValue).findFirst();
    }

    private void pod(JsonNode pod) {
      String name = pod.path("metadata").path("name").asText();
      of(name).ifPresent(timeline -> {
        timeline.saw("pods", name);
        if (!pod.path("spec").path("nodeName").asText().isEmpty()) {
          timeline.saw("scheduled", name);
        }
        JsonNode inits = pod.path("status").path("initContainerStatuses");
        if (inits.size() > 0) {
          boolean done = true;
          for (JsonNode init : inits) {
            done &= init.path("state").has("terminated");
          }
          if (done) {
            timeline.saw("init_seen", name);
          }
        }
        for (JsonNode container : pod.path("status").path("containerStatuses")) {
          if (container.path("state").has("running")) {
            timeline.saw("started_seen", name);
          }
        }
      });
    }

    private void event(JsonNode event) {
      String pod = event.path("involvedObject").path("name").asText();
      if (!event.path("reason").asText().equals("Pulled")
          || event.path("involvedObject").path("fieldPath").asText().contains("initContainers")) {
        return;
      }
      of(pod).ifPresent(timeline -> {
        timeline.saw("pulled", pod);
        Matcher in = PULLED_IN.matcher(event.path("message").asText());
        if (in.find()) {
          double value = Double.parseDouble(in.group(1));
          timeline.pulled(Math.round(in.group(2).equals("s") ? value * 1000 : value));
        }
      });
    }

    private static void reader(String name, InputStream in, Consumer<JsonNode> each) {
      Thread thread = new Thread(() -> {
        try (MappingIterator<JsonNode> values = JSON.readerFor(JsonNode.class).readValues(in)) {
          while (values.hasNext()) {
            each.accept(values.next());
          }
        } catch (IOException | RuntimeException e) {
          System.err.println(name + " ended: " + e);
        }
      }, name);
      thread.setDaemon(true);
      thread.start();
    }

    @Override
    public void close() {
      processes.forEach(Process::destroy);
    }
  }
}
