package dev.fairing4j.deployer.local.internal.state;

import dev.fairing4j.deployer.local.internal.settings.Retention;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the local cluster's finished jobs within bounds, as a cluster's garbage collection does:
 * a job whose manifest sets {@code ttlSecondsAfterFinished} goes that long after it finished (the
 * operator's rule), and of the rest the newest {@link Retention#keep()} stay, none older than
 * {@link Retention#maxAge()}. Only settled jobs are removed: no process of theirs is left.
 * Applied when a job is submitted and when jobs are listed, so it needs no thread of its own.
 */
public final class FinishedJobs {
  private static final Logger LOG = LoggerFactory.getLogger(FinishedJobs.class);


  private FinishedJobs() {}

  /** Removes what {@code retention} and the jobs' own TTLs do not keep; returns their names. */
  public static List<String> prune(StateStore store, Retention retention, Instant now) {
    List<Finished> finished = new ArrayList<>();
    for (String namespace : store.namespaces()) {
      for (Path dir : store.jobDirs(namespace)) {
        try {
          store.read(dir).filter(JobRecord::settled)
              .flatMap(r -> StatusMapper.instant(r.completionTime())
                  .map(t -> new Finished(dir, r, t)))
              .ifPresent(finished::add);
        } catch (RuntimeException e) {
          LOG.debug("not pruning {}: {}", dir, e.toString());
        }
      }
    }
    finished.sort(Comparator.comparing(Finished::completed).reversed());
    List<String> removed = new ArrayList<>();
    Instant oldest = now.minus(retention.maxAge());
    for (int i = 0; i < finished.size(); i++) {
      Finished job = finished.get(i);
      Optional<Duration> ttl = ttl(job.record());
      boolean expired = ttl.isPresent() && job.completed().plus(ttl.get()).isBefore(now);
      if (expired || i >= retention.keep() || job.completed().isBefore(oldest)) {
        try {
          store.markDeleting(job.dir());
          store.remove(job.dir());
          removed.add(job.record().namespace() + "/" + job.record().name());
        } catch (RuntimeException e) {
          LOG.debug("cannot remove the finished job {}: {}", job.dir(), e.toString());
        }
      }
    }
    if (!removed.isEmpty()) {
      LOG.info("removed {} finished local job(s) past their retention: {}", removed.size(),
          removed);
    }
    return removed;
  }

  private record Finished(Path dir, JobRecord record, Instant completed) {}

  /** The job's {@code ttlSecondsAfterFinished}: runPolicy's (Kubeflow v1), or the Job spec's. */
  static Optional<Duration> ttl(JobRecord record) {
    for (Map<String, Object> object : record.manifest()) {
      if (!record.kind().equals(object.get("kind"))) {
        continue;
      }
      Object spec = object.get("spec");
      if (spec instanceof Map<?, ?> s) {
        Object value = s.get("runPolicy") instanceof Map<?, ?> run
            ? run.get("ttlSecondsAfterFinished") : s.get("ttlSecondsAfterFinished");
        if (value instanceof Number seconds && seconds.longValue() >= 0) {
          return Optional.of(Duration.ofSeconds(seconds.longValue()));
        }
      }
    }
    return Optional.empty();
  }
}
