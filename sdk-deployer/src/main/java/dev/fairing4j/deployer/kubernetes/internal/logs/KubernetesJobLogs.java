package dev.fairing4j.deployer.kubernetes.internal.logs;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.JobLogs;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.internal.Validators;
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

  /** All logs of {@code job}. */
  public KubernetesJobLogs(Supplier<KubeRest> rest, JobRef job, Timings timings) {
    this(rest, job, timings, LogSelection.ALL);
  }

  private KubernetesJobLogs(Supplier<KubeRest> rest, JobRef job, Timings timings,
      LogSelection selection) {
    this.rest = Objects.requireNonNull(rest, "rest");
    this.job = Objects.requireNonNull(job, "job");
    this.timings = Objects.requireNonNull(timings, "timings");
    this.selection = Objects.requireNonNull(selection, "selection");
  }

  @Override
  public JobLogs tail(int lines) {
    Validators.atLeast("tail", lines, 0);
    return new KubernetesJobLogs(rest, job, timings,
        new LogSelection(Optional.of(lines), selection.since(), selection.replica()));
  }

  @Override
  public JobLogs since(Instant time) {
    Objects.requireNonNull(time, "time");
    return new KubernetesJobLogs(rest, job, timings,
        new LogSelection(selection.tail(), Optional.of(time), selection.replica()));
  }

  @Override
  public JobLogs replica(String replica) {
    Validators.requireText("replica", replica);
    if (!replica.trim().matches("(?i)[a-z]+(-[a-z]+)*(-[0-9]+)?")) {
      throw InvalidInputException.of("replica", "'" + replica + "' is not a replica name",
          "name an instance such as 'worker-1' or 'node-0', or a type such as 'worker'");
    }
    return new KubernetesJobLogs(rest, job, timings,
        new LogSelection(selection.tail(), selection.since(), Optional.of(replica)));
  }

  @Override
  public List<LogLine> snapshot() {
    KubeRest client = rest.get();
    JobReader reader = new JobReader(client, job);
    Map<String, Object> object = reader.object().orElse(Map.of());
    List<LogLine> lines = new ArrayList<>();
    for (JobReader.JobPod pod : reader.jobPods(object)) {
      if (!selection.matches(pod.info())) {
        continue;
      }
      String container = PodDiagnosis.trainingContainer(pod.object(), job.kind());
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

  @Override
  public LogStream stream(Consumer<LogLine> consumer) {
    Objects.requireNonNull(consumer, "consumer");
    return StreamingLogStream.start(rest.get(), job, selection, timings, consumer);
  }

  /** A container that has not started (400) or a pod that is gone (404): nothing to read. */
  static boolean notReadable(KubernetesApiException e) {
    return e.httpStatus().filter(s -> s == 400).isPresent() || e.problem() == Problem.NOT_FOUND;
  }

  @Override
  public String toString() {
    return "logs of " + job + selection.replica().map(r -> " replica " + r).orElse("")
        + selection.tail().map(t -> " tail " + t).orElse("")
        + selection.since().map(s -> " since " + s).orElse("");
  }
}
