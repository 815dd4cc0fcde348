package dev.fairing4j.deployer.local.internal;

import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.local.internal.settings.Retention;
import dev.fairing4j.deployer.local.internal.state.FinishedJobs;
import dev.fairing4j.deployer.local.internal.state.JobRecord;
import dev.fairing4j.deployer.local.internal.state.StateStore;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The jobs a state directory records, whichever JVM started them: what the local and the podman
 * cluster list and attach to. Reads the directory on every call, so a job started or deleted
 * elsewhere shows at once.
 */
public final class RecordedJobs {
  private final Path stateDir;
  private final boolean killOnTimeout;
  private final Retention retention;

  /**
   * The jobs under {@code stateDir}; their handles kill on timeout when asked to. Listing
   * applies {@code retention} first, so finished jobs past it are not listed.
   */
  public RecordedJobs(Path stateDir, boolean killOnTimeout, Retention retention) {
    this.stateDir = stateDir;
    this.killOnTimeout = killOnTimeout;
    this.retention = retention;
  }

  /** The jobs of {@code namespace}, by name. */
  public List<TrainingJob> list(String namespace) {
    Validators.dns1123Label("namespace", namespace);
    StateStore store = new StateStore(stateDir);
    FinishedJobs.prune(store, retention, Instant.now());
    return jobs(store, namespace);
  }

  /** The jobs of every namespace. */
  public List<TrainingJob> listAll() {
    StateStore store = new StateStore(stateDir);
    // once for all namespaces: the retention counts finished jobs across them
    FinishedJobs.prune(store, retention, Instant.now());
    List<TrainingJob> jobs = new ArrayList<>();
    for (String namespace : store.namespaces()) {
      Validators.dns1123Label("namespace", namespace);
      jobs.addAll(jobs(store, namespace));
    }
    return jobs;
  }

  private List<TrainingJob> jobs(StateStore store, String namespace) {
    List<TrainingJob> jobs = new ArrayList<>();
    for (Path dir : store.jobDirs(namespace)) {
      store.read(dir).ifPresent(record -> jobs.add(handle(store, dir, record)));
    }
    return jobs;
  }

  /** A handle on job {@code name} of {@code namespace}, if it exists. */
  public Optional<TrainingJob> attach(String namespace, String name) {
    Validators.dns1123Label("namespace", namespace);
    Validators.dns1035Label("job name", name);
    StateStore store = new StateStore(stateDir);
    Path dir = store.jobDir(namespace, name);
    return store.read(dir).map(record -> handle(store, dir, record));
  }

  private TrainingJob handle(StateStore store, Path dir, JobRecord record) {
    return new LocalTrainingJob(store, dir, record.kind(), record.name(), record.namespace(),
        killOnTimeout);
  }
}
