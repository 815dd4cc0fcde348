package dev.fairing4j.deployer.local.internal.supervisor;

import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.deployer.local.internal.plan.JobPlan;
import dev.fairing4j.deployer.local.internal.plan.JobPorts;
import dev.fairing4j.deployer.local.internal.operator.JobSupervisor;
import dev.fairing4j.deployer.local.internal.runtime.HostFacts;
import dev.fairing4j.deployer.local.internal.runtime.Launcher;
import dev.fairing4j.deployer.local.internal.runtime.ProcessGroups;
import dev.fairing4j.deployer.local.internal.state.StateStore;
import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The supervisor process of one local job: what makes a job outlive the JVM that submitted it.
 * Started by {@link SpareSupervisors} in a session of its own, it warms up, then reads its job
 * from stdin as one line ({@code <state dir> TAB <namespace> TAB <job>}), waits for the job's
 * {@link SupervisorSpec}, runs a {@link JobSupervisor} until the job is over and none of its
 * processes is left, and exits. An end of input before a job arrives (the submitting JVM exited,
 * or retired an idle spare) ends it. Its replicas die with it (bwrap's
 * {@code --die-with-parent}), so a supervisor that is killed leaves nothing running either.
 */
public final class SupervisorMain {
  private static final Duration SPEC_WAIT = Duration.ofHours(1);

  private SupervisorMain() {}

  /** Supervises the job read from stdin, then exits: 0 when it let go of it, 1 on an error. */
  public static void main(String[] args) throws IOException {
    warmUp();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in,
        StandardCharsets.UTF_8));
    String line = in.readLine();
    if (line == null) {
      System.exit(0);
    }
    String[] job = line.split("\t");
    if (job.length != 3) {
      System.err.println("expected <state dir> TAB <namespace> TAB <job>, got: " + line);
      System.exit(2);
    }
    Path stateDir = Path.of(job[0]);
    Path jobDir = new StateStore(stateDir).jobDir(job[1], job[2]);
    // Until now output went nowhere: a spare has no job to log for.
    PrintStream log = new PrintStream(new FileOutputStream(
        jobDir.resolve(StateStore.SUPERVISOR_LOG).toFile(), true), true, StandardCharsets.UTF_8);
    System.setOut(log);
    System.setErr(log);
    System.exit(run(stateDir, job[1], job[2]));
  }

  /**
   * Loads and initialises what supervising a job needs (Jackson's readers and writers above
   * all, a good part of a second in a fresh JVM), so a spare that gets a job starts its replicas
   * at once.
   */
  private static void warmUp() throws IOException {
    // Repeated while no job waits, so the compiler has seen the hot paths too, not only the
    // class loader: a spare's replicas then start in tens of milliseconds.
    for (int i = 0; i < 50 && (i == 0 || System.in.available() == 0); i++) {
      StateStore.warmUp();
      SupervisorSpec.warmUp();
    }
    // the first process start of a JVM loads and links its own share of classes
    try {
      Launcher.start(new ProcessBuilder("true").redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)).waitFor();
    } catch (IOException e) {
      // only a warm-up: the replica's start reports what is wrong
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    ProcessGroups.members(ProcessHandle.current().pid());
    HostFacts.hostName();
  }

  static int run(Path stateDir, String namespace, String name) {
    StateStore store = new StateStore(stateDir);
    Path jobDir = store.jobDir(namespace, name);
    Optional<SupervisorSpec> spec;
    try {
      spec = awaitSpec(jobDir);
    } catch (IOException | RuntimeException e) {
      System.err.println(Instant.now() + " cannot read the job's " + SupervisorSpec.FILE);
      e.printStackTrace();
      return 1;
    }
    if (spec.isEmpty()) {
      // the submit was given up (failed, or its JVM died) before the job was handed over
      return 0;
    }
    JobPlan plan = spec.get().plan();
    JobSupervisor supervisor = new JobSupervisor(plan, jobDir, store, spec.get().launcher(),
        spec.get().prepared(plan), new JobPorts(spec.get().ports()),
        spec.get().statusEndpoint(jobDir), spec.get().gpusAvailable(), spec.get().ignoreGpus(),
        true,
        Instant.parse(spec.get().createdAt()), ProgressListener.NONE);
    try {
      supervisor.start();
    } catch (RuntimeException e) {
      System.err.println(Instant.now() + " cannot start " + namespace + "/" + name);
      e.printStackTrace();
      return 1;
    }
    long pid = ProcessHandle.current().pid();
    // SIGTERM (a shutdown, someone's kill): stop the replicas gracefully and say why.
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      if (!supervisor.isSettled()) {
        supervisor.stop("the job's supervisor process (pid " + pid + ") was terminated");
      }
    }, "fairing4j-supervisor-shutdown"));
    try {
      supervisor.awaitReleased();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
    return 0;
  }

  /**
   * Waits for the submitter to hand the job over; empty when it gave up: the job directory went
   * or is being deleted, or the submitting JVM (this process's parent) died first.
   */
  private static Optional<SupervisorSpec> awaitSpec(Path jobDir) throws IOException {
    Path file = jobDir.resolve(SupervisorSpec.FILE);
    Optional<ProcessHandle> parent = ProcessHandle.current().parent();
    Instant end = Instant.now().plus(SPEC_WAIT);
    while (!Files.exists(file)) {
      if (!Files.isDirectory(jobDir) || StateStore.isDeleting(jobDir)
          || parent.map(p -> !p.isAlive()).orElse(true) || Instant.now().isAfter(end)) {
        return Optional.empty();
      }
      try {
        Thread.sleep(2);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
    }
    return Optional.of(SupervisorSpec.read(jobDir));
  }
}
