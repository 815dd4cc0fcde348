package dev.fairing4j.deployer.local.internal;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.job.internal.RenderedJob;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import dev.fairing4j.deployer.local.internal.operator.JobSupervisor;
import dev.fairing4j.deployer.local.internal.operator.LiveJobs;
import dev.fairing4j.deployer.local.internal.plan.ContainerEnv;
import dev.fairing4j.deployer.local.internal.plan.EnvExpansion;
import dev.fairing4j.deployer.local.internal.plan.HostRewriter;
import dev.fairing4j.deployer.local.internal.plan.JobPlan;
import dev.fairing4j.deployer.local.internal.plan.JobPorts;
import dev.fairing4j.deployer.local.internal.plan.ManifestReader;
import dev.fairing4j.deployer.local.internal.plan.OperatorEnv;
import dev.fairing4j.deployer.local.internal.plan.PodFacts;
import dev.fairing4j.deployer.local.internal.plan.PodHosts;
import dev.fairing4j.deployer.local.internal.plan.PreparedReplica;
import dev.fairing4j.deployer.local.internal.plan.ReplicaId;
import dev.fairing4j.deployer.local.internal.plan.VolumeBinder;
import dev.fairing4j.deployer.local.internal.python.ImportScanner;
import dev.fairing4j.deployer.local.internal.python.InterpreterResolver;
import dev.fairing4j.deployer.local.internal.python.RequirementsInstaller;
import dev.fairing4j.deployer.local.internal.python.Torchrun;
import dev.fairing4j.deployer.local.internal.runtime.GpuProbe;
import dev.fairing4j.deployer.local.internal.runtime.HostFacts;
import dev.fairing4j.deployer.local.internal.runtime.LaunchSpec;
import dev.fairing4j.deployer.local.internal.runtime.Sandbox;
import dev.fairing4j.deployer.local.internal.runtime.SandboxCheck;
import dev.fairing4j.deployer.local.internal.runtime.SignalDefaults;
import dev.fairing4j.deployer.local.internal.runtime.Stager;
import dev.fairing4j.deployer.local.internal.settings.LocalSettings;
import dev.fairing4j.deployer.local.internal.state.StateStore;
import dev.fairing4j.deployer.local.internal.supervisor.DetachedSupervisor;
import dev.fairing4j.deployer.local.internal.supervisor.PhaseRelay;
import dev.fairing4j.deployer.local.internal.supervisor.SupervisorSpec;
import dev.fairing4j.deployer.local.internal.trainerstatus.StatusEndpoint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Submits a rendered job to this machine: reads the manifest, stages the build context, chooses
 * the interpreter and installs requirements, works out each replica's command line and
 * environment, then hands the job to a supervisor: a process of the job's own, started while the
 * job is prepared, so the job outlives this JVM; or this JVM, when the cluster is
 * {@code tiedToJvm()}. Everything that can be wrong with the job is found here, before any
 * replica starts; a failed submit leaves nothing in the state directory and no process.
 */
public final class LocalSubmitter {
  /** The PATH of a typical container image. */
  static final String DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

  private LocalSubmitter() {}

  /** Submits {@code job}, running {@code context}, with {@code settings}. */
  public static TrainingJob submit(LocalSettings settings, RenderedJob job, BuildContext context,
      SubmitOptions options, ProgressListener progress) {
    ProgressListener listener = SubmitSteps.guard(progress);
    JobPlan plan = ManifestReader.read(job);
    Sandbox sandbox = SandboxCheck.sandbox(settings.sandbox());
    StateStore store = new StateStore(settings.stateDir());
    Path jobDir = store.jobDir(plan.namespace(), plan.name());
    SubmitSteps.createJobDir(store, jobDir, plan, options, "local", settings);
    Optional<DetachedSupervisor> detached = Optional.empty();
    try {
      // Started first: the supervisor's JVM boots while the job is staged and probed.
      detached = settings.tiedToJvm() ? Optional.empty()
          : Optional.of(DetachedSupervisor.assign(store, plan.namespace(), plan.name(),
              plan.totalReplicas()));
      TrainingJob handle = prepareAndStart(settings, plan, context, sandbox, store, jobDir,
          listener, detached);
      if (detached.isPresent() && progress != null && progress != ProgressListener.NONE) {
        PhaseRelay.start(store, jobDir, plan.name(), listener);
      }
      return handle;
    } catch (RuntimeException e) {
      detached.ifPresent(DetachedSupervisor::cancel);
      SubmitSteps.stopLive(jobDir);
      store.remove(jobDir);
      throw e;
    }
  }

  private static TrainingJob prepareAndStart(LocalSettings settings, JobPlan plan,
      BuildContext context, Sandbox sandbox, StateStore store, Path jobDir,
      ProgressListener listener, Optional<DetachedSupervisor> detached) {
    // Counted once: on a machine with nvidia-smi it is a process start.
    int gpus = SubmitSteps.gpus(plan);
    SubmitSteps.requireGpus(plan, gpus, settings.ignoreGpuRequests(), "Clusters.local()");
    SubmitSteps.noteSideContainers(plan, "local", listener);
    if (!sandbox.isolates()) {
      listener.onEvent(new ProgressEvent.Note("local cluster: no sandbox; replicas run in "
          + StateStore.runDir(jobDir) + " and container paths a script opens (volume mount"
          + " paths, files outside " + context.workingDir() + ") are the host's own"));
    }
    Stager.Staged staged = Stager.stage(context, StateStore.runDir(jobDir),
        jobDir.resolve("files"));
    Map<String, List<String>> argvs = new LinkedHashMap<>();
    Set<String> modules = new LinkedHashSet<>();
    boolean usesPython = false;
    for (JobPlan.Group group : plan.groups()) {
      List<String> argv = argv(group, context);
      argvs.put(group.type(), argv);
      // A shell-form command (a Dockerfile's CMD python ...) runs Python through the shell.
      List<String> program = ImportScanner.programWords(argv);
      modules.addAll(ImportScanner.requiredModules(program, context,
          workingDir(group, context)));
      usesPython |= ImportScanner.isPython(program.get(0))
          || ImportScanner.isTorchrun(program.get(0));
    }
    // The image's own dependency layer (prebuildRequirements) is on the job's PYTHONPATH.
    List<Path> provided = staged.hostDirs(context.env().getOrDefault("PYTHONPATH", ""));
    Optional<InterpreterResolver.Interpreter> interpreter = interpreter(settings, sandbox,
        modules, usesPython, staged.requirements().isPresent(), provided);
    if (usesPython || staged.requirements().isPresent()) {
      interpreter.ifPresent(i -> listener.onEvent(new ProgressEvent.Note(i.note())));
    }
    Optional<Path> deps = staged.requirements().map(requirements -> {
      Path target = staged.runDir().resolve(".deps");
      String step = "install requirements for " + plan.name();
      listener.onEvent(new ProgressEvent.StepStarted(step));
      Instant began = Instant.now();
      RequirementsInstaller.install(interpreter.orElseThrow().executable(), requirements,
          staged.runDir(), target, jobDir.resolve("logs").resolve("pip.log"));
      listener.onEvent(new ProgressEvent.StepFinished(step, Duration.between(began,
          Instant.now())));
      InterpreterResolver.checkAfterInstall(interpreter.get(), target, provided,
          sandbox.isolates());
      return target;
    });
    Optional<Path> binDir = interpreter.map(i -> shims(jobDir.resolve("bin"), i.executable()));
    JobPorts ports = JobPorts.allocate(plan);
    Optional<StatusEndpoint> statusEndpoint = StatusEndpoint.forPlan(plan, jobDir);
    statusEndpoint.ifPresent(e -> e.issue(store.root()));
    HostRewriter rewriter = new HostRewriter(plan, ports);
    ContainerEnv containerEnv = new ContainerEnv(plan, rewriter);
    Optional<Path> hostsFile = sandbox.isolates()
        ? Optional.of(PodHosts.of(plan).write(jobDir.resolve("net"))) : Optional.empty();
    Map<String, PreparedReplica> prepared = new LinkedHashMap<>();
    for (ReplicaId id : plan.replicas()) {
      JobPlan.Group group = plan.group(id.type()).orElseThrow();
      JobPlan.Container container = group.pod().container();
      Map<String, String> env = new LinkedHashMap<>();
      env.put("PATH", DEFAULT_PATH);
      env.put("HOME", sandbox.home());
      env.putAll(context.env());
      env.putAll(containerEnv.resolve(container,
          PodFacts.of(plan, id, HostFacts.hostName()), context.env()));
      env.putAll(OperatorEnv.of(plan, id, ports, hostsFile.isPresent()));
      statusEndpoint.ifPresent(e -> env.putAll(e.env(sandbox.isolates())));
      SubmitSteps.serverHost(plan, settings, env);
      deps.ifPresent(d -> {
        String seen = sandbox.isolates() ? join(staged.workingDir(), ".deps") : d.toString();
        env.merge("PYTHONPATH", seen, (old, added) -> old.isEmpty() ? added : old + ":" + added);
        // The image's start-up wrapper finds them installed there and runs no pip.
        env.put(RequirementsInstaller.SITE_PACKAGES_ENV, seen);
      });
      binDir.ifPresent(b -> env.put("PATH", sandbox.binDir(b) + ":" + env.get("PATH")));
      List<String> argv = new ArrayList<>();
      for (String arg : argvs.get(group.type())) {
        argv.add(rewriter.rewrite(EnvExpansion.expand(arg, env)));
      }
      List<LaunchSpec.Bind> binds = new ArrayList<>(VolumeBinder.binds(plan, id, settings,
          jobDir));
      staged.outside().forEach(f -> binds.add(new LaunchSpec.Bind(f.host(), f.containerPath(),
          false, false)));
      statusEndpoint.ifPresent(e -> binds.add(e.bind()));
      List<Path> devices = container.gpus() > 0 && gpus > 0 ? GpuProbe.devices() : List.of();
      LaunchSpec spec = new LaunchSpec(python(argv, interpreter), workingDir(group, context),
          staged.runDir(), staged.workingDir(), binds, binDir,
          interpreter.map(InterpreterResolver.Interpreter::hostDirs).orElse(List.of()), devices,
          hostsFile.map(hosts -> new LaunchSpec.Host(id.podName(), hosts)));
      prepared.put(id.podName(), new PreparedReplica(id,
          SignalDefaults.wrap(sandbox.command(spec)),
          sandbox.directory(spec), env, container.gpus()));
    }
    Instant created = Instant.now();
    if (detached.isPresent()) {
      detached.get().hand(jobDir, store, SupervisorSpec.of(plan, created, sandbox, prepared, ports,
          statusEndpoint, gpus, settings.ignoreGpuRequests()), JobSupervisor.initialRecord(plan,
          ports, sandbox.toString(), detached.get().handle(), created));
      return new LocalTrainingJob(store, jobDir, plan.kind().kind(), plan.name(),
          plan.namespace(), settings.killOnTimeout(), listener);
    }
    JobSupervisor supervisor = new JobSupervisor(plan, jobDir, store, sandbox, prepared, ports,
        statusEndpoint, gpus, settings.ignoreGpuRequests(), false, created, listener);
    LiveJobs.register(jobDir, supervisor);
    supervisor.start();
    return new LocalTrainingJob(store, jobDir, plan.kind().kind(), plan.name(),
        plan.namespace(), settings.killOnTimeout(), listener);
  }

  private static List<String> argv(JobPlan.Group group, BuildContext context) {
    JobPlan.Container container = group.pod().container();
    List<String> argv = new ArrayList<>(container.command().isEmpty() ? context.command()
        : container.command());
    argv.addAll(container.args());
    if (argv.isEmpty()) {
      throw InvalidInputException.of("command", "the " + group.type() + " container '"
          + container.name() + "' has no command and the build context none",
          "give the preprocessor an entry point, or set the container's command");
    }
    return argv;
  }

  private static String workingDir(JobPlan.Group group, BuildContext context) {
    return group.pod().container().workingDir().orElse(context.workingDir());
  }

  private static Optional<InterpreterResolver.Interpreter> interpreter(LocalSettings settings,
      Sandbox sandbox, Set<String> modules, boolean usesPython, boolean requirements,
      List<Path> provided) {
    if (usesPython || requirements) {
      return Optional.of(InterpreterResolver.choose(modules, settings.python(),
          sandbox.isolates(), requirements, provided));
    }
    // A shell entry point may still call python: offer one when there is one, never require it.
    try {
      return Optional.of(InterpreterResolver.choose(Set.of(), settings.python(),
          sandbox.isolates(), false, List.of()));
    } catch (FairingException e) {
      return Optional.empty();
    }
  }

  /** {@code python ...} and {@code torchrun ...} run with the chosen interpreter. */
  private static List<String> python(List<String> argv,
      Optional<InterpreterResolver.Interpreter> interpreter) {
    if (interpreter.isEmpty()) {
      return argv;
    }
    String exe = interpreter.get().executable().toString();
    List<String> resolved = new ArrayList<>();
    if (ImportScanner.isPython(argv.get(0))) {
      resolved.add(exe);
    } else if (ImportScanner.isTorchrun(argv.get(0))) {
      resolved.addAll(List.of(exe, "-c", Torchrun.PROGRAM));
    } else {
      return argv;
    }
    resolved.addAll(argv.subList(1, argv.size()));
    return resolved;
  }

  /** {@code python}, {@code python3}, {@code pip} and {@code torchrun} for scripts' children. */
  private static Path shims(Path dir, Path python) {
    try {
      Files.createDirectories(dir);
      // Scripts rather than symlinks: a job directory then holds no link leading out of it.
      script(dir.resolve("python"), python.toString());
      script(dir.resolve("python3"), python.toString());
      // A Python script of its own, so a torchrun a script starts gets the same repair.
      Path torchrun = dir.resolve("torchrun");
      Files.writeString(torchrun, "#!" + python + "\n" + Torchrun.PROGRAM);
      Files.setPosixFilePermissions(torchrun, PosixFilePermissions.fromString("rwxr-xr-x"));
      script(dir.resolve("pip"), python + " -m pip");
      return dir;
    } catch (IOException e) {
      throw FairingException.of("prepare local job", dir.toString(), e.getMessage(),
          "check the permissions of the state directory", e);
    }
  }

  private static void script(Path file, String command) throws IOException {
    Files.writeString(file, "#!/bin/sh\nexec " + command + " \"$@\"\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  private static String join(String dir, String name) {
    return dir.endsWith("/") ? dir + name : dir + "/" + name;
  }
}
