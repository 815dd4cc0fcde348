package dev.fairing4j.deployer.kubernetes.internal.logs;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.JobLogs;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException.Problem;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobReader;
import dev.fairing4j.deployer.kubernetes.internal.jobs.JobRef;
import dev.fairing4j.deployer.kubernetes.internal.jobs.PodDiagnosis;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeRest;
import dev.fairing4j.deployer.kubernetes.internal.transport.Timings;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The logs of a Kubernetes job's replicas: the training container of each pod, prefixed with its
 * replica ({@code master-0}). An immutable request; {@link #snapshot()} reads what is there,
 * {@link #stream} follows live streams (see {@link StreamingLogStream}).
 */
public final class KubernetesJobLogs implements JobLogs {
  private static final Logger LOG = LoggerFactory.getLogger(KubernetesJobLogs.class);

  private final Supplier<KubeRest> rest;
  private final JobRef job;
  private final Timings timings;
  private final LogSelection selection;
  private final Optional<FollowedLines> followed;

  /** All logs of {@code job}, as the kubelet keeps them. */
  public KubernetesJobLogs(Supplier<KubeRest> rest, JobRef job, Timings timings) {
    this(rest, job, timings, LogSelection.ALL, Optional.empty());
  }

  /**
   * All logs of {@code job}; what its streams deliver is also kept in {@code followed}, the job
   * handle's, where a snapshot finds a followed replica whose pod is gone.
   */
  public KubernetesJobLogs(Supplier<KubeRest> rest, JobRef job, Timings timings,
      FollowedLines followed) {
    this(rest, job, timings, LogSelection.ALL, Optional.of(followed));
  }

  private KubernetesJobLogs(Supplier<KubeRest> rest, JobRef job, Timings timings,
      LogSelection selection, Optional<FollowedLines> followed) {
    this.rest = Objects.requireNonNull(rest, "rest");
    this.job = Objects.requireNonNull(job, "job");
    this.timings = Objects.requireNonNull(timings, "timings");
    this.selection = Objects.requireNonNull(selection, "selection");
    this.followed = Objects.requireNonNull(followed, "followed");
  }

  private KubernetesJobLogs with(LogSelection narrowed) {
    return new KubernetesJobLogs(rest, job, timings, narrowed, followed);
  }

  @Override
  public JobLogs tail(int lines) {
    Validators.atLeast("tail", lines, 0);
    return with(selection.withTail(lines));
  }

  @Override
  public JobLogs since(Instant time) {
    Objects.requireNonNull(time, "time");
    return with(selection.withSince(time));
  }

  @Override
  public JobLogs replica(String replica) {
    Validators.requireText("replica", replica);
    if (!replica.trim().matches("(?i)[a-z]+(-[a-z]+)*(-[0-9]+)?")) {
      throw InvalidInputException.of("replica", "'" + replica + "' is not a replica name",
          "name an instance such as 'worker-1' or 'node-0', or a type such as 'worker'");
    }
    return with(selection.withReplica(replica));
  }

  /**
   * Reads {@code name} instead of the training container: a sidecar, or an init container. A
   * name none of the job's pods has is refused when the logs are read, with the names they have.
   */
  @Override
  public JobLogs container(String name) {
    Validators.dns1123Label("container", name);
    return with(selection.withContainer(name));
  }

  @Override
  public List<LogLine> snapshot() {
    KubeRest client = rest.get();
    JobReader reader = new JobReader(client, job);
    Map<String, Object> object = reader.object().orElse(Map.of());
    List<LogLine> lines = new ArrayList<>();
    List<JobReader.JobPod> pods = reader.jobPods(object).stream()
        .filter(pod -> selection.matches(pod.info())).toList();
    checkContainer(pods.stream().map(JobReader.JobPod::object).toList());
    Set<String> present = new java.util.HashSet<>();
    for (JobReader.JobPod pod : pods) {
      present.add(PodDiagnosis.shortName(pod.info()));
    }
    // Replicas this handle followed whose pods are gone: the lines it kept, first.
    followed.ifPresent(kept -> lines.addAll(kept.missingFrom(present, selection)));
    for (JobReader.JobPod pod : pods) {
      String container = selection.containerOf(pod.object(), job.kind());
      String body;
      try {
        body = client.readLog(job.namespace(), pod.info().name(), container, selection.tail(),
            true, selection.since());
      } catch (KubernetesApiException e) {
        if (notReadable(e)) {
          LOG.debug("No log yet for {}: {}", pod.info().name(), e.getMessage());
          continue;
        }
        throw e;
      }
      String replica = PodDiagnosis.shortName(pod.info());
      for (TimestampedLine line : new LogCursor(selection.since())
          .advance(TimestampedLine.parse(body))) {
        lines.add(new LogLine(replica, container, line.text(), line.timestamp()));
      }
    }
    return lines;
  }

  /**
   * Refuses a container none of {@code pods} has (when there are pods to tell): a typo would
   * otherwise read as an empty log.
   */
  private void checkContainer(List<Map<String, Object>> pods) {
    if (selection.container().isEmpty() || pods.isEmpty()) {
      return;
    }
    Set<String> names = new TreeSet<>();
    for (Map<String, Object> pod : pods) {
      for (String field : List.of("initContainers", "containers")) {
        JsonTree.maps(pod, "spec", field).forEach(c -> names.add(String.valueOf(c.get("name"))));
      }
    }
    String wanted = selection.container().get();
    if (!names.contains(wanted)) {
      throw InvalidInputException.of("container", "no pod of " + job + " has a container named '"
          + wanted + "' (its pods have " + String.join(", ", names) + ")",
          "pick one of those, or leave container(..) out for the training container");
    }
  }

  @Override
  public LogStream stream(Consumer<LogLine> consumer) {
    Objects.requireNonNull(consumer, "consumer");
    if (selection.container().isPresent()) {
      checkContainer(new JobReader(rest.get(), job).podObjects());
    }
    boolean byDefault = selection.container().isEmpty();
    Consumer<LogLine> delivered = followed.<Consumer<LogLine>>map(kept -> line -> {
      kept.add(line, byDefault);
      consumer.accept(line);
    }).orElse(consumer);
    return StreamingLogStream.start(rest.get(), job, selection, timings, delivered);
  }

  /** A container that has not started (400) or a pod that is gone (404): nothing to read. */
  static boolean notReadable(KubernetesApiException e) {
    return e.httpStatus().filter(s -> s == 400).isPresent() || e.problem() == Problem.NOT_FOUND;
  }

  @Override
  public String toString() {
    return "logs of " + job + selection.replica().map(r -> " replica " + r).orElse("")
        + selection.tail().map(t -> " tail " + t).orElse("")
        + selection.since().map(s -> " since " + s).orElse("")
        + selection.container().map(c -> " container " + c).orElse("");
  }
}
