package dev.fairing4j.deployer.local.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.job.internal.Mappers;
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
import dev.fairing4j.deployer.local.internal.plan.PreparedReplica;
import dev.fairing4j.deployer.local.internal.plan.ReplicaId;
import dev.fairing4j.deployer.local.internal.plan.VolumeBinder;
import dev.fairing4j.deployer.local.internal.runtime.ContainerCleanup;
import dev.fairing4j.deployer.local.internal.runtime.GpuProbe;
import dev.fairing4j.deployer.local.internal.runtime.HostFacts;
import dev.fairing4j.deployer.local.internal.runtime.HostTools;
import dev.fairing4j.deployer.local.internal.runtime.LaunchSpec;
import dev.fairing4j.deployer.local.internal.runtime.PodmanLauncher;
import dev.fairing4j.deployer.local.internal.runtime.PodmanReaper;
import dev.fairing4j.deployer.local.internal.runtime.PodmanTool;
import dev.fairing4j.deployer.local.internal.runtime.SignalDefaults;
import dev.fairing4j.deployer.local.internal.settings.LocalSettings;
import dev.fairing4j.deployer.local.internal.settings.PodmanSettings;
import dev.fairing4j.deployer.local.internal.state.StateStore;
import dev.fairing4j.deployer.local.internal.trainerstatus.StatusEndpoint;
import java.nio.file.Path;
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
 * Submits a rendered job to podman on this machine: the same manifest reading, ports, environment,
 * volumes and supervision as the local cluster, but each replica is a {@code podman run} of the
 * image the pipeline built (the container's {@code image}, pinned by digest) on the host network,
 * instead of a sandbox over the staged build context. Everything that can be wrong is found before
 * any container starts: podman and runc present, every image pulled.
 */
public final class PodmanSubmitter {

  private PodmanSubmitter() {}

  /** Submits {@code job} with {@code settings}; {@code context} only lends its env to $(VAR). */
  public static TrainingJob submit(PodmanSettings settings, RenderedJob job, BuildContext context,
      SubmitOptions options, ProgressListener progress) {
    ProgressListener listener = SubmitSteps.guard(progress);
    JobPlan plan = ManifestReader.read(job);
    Set<String> images = images(plan);
    PodmanTool tool = PodmanTool.resolve(settings);
    List<String> wrapper = List.of(HostTools.require("setsid", "util-linux", "").toString(),
        HostTools.require("setpriv", "util-linux", "").toString(), "--pdeathsig", "KILL", "--");
    LocalSettings local = settings.local();
    StateStore store = new StateStore(local.stateDir());
    Path jobDir = store.jobDir(plan.namespace(), plan.name());
    SubmitSteps.createJobDir(store, jobDir, plan, options, "podman", local);
    try {
      return prepareAndStart(local, plan, context, tool, wrapper, images, store, jobDir,
          listener);
    } catch (RuntimeException e) {
      SubmitSteps.stopLive(jobDir);
      ContainerCleanup.run(jobDir);
      store.remove(jobDir);
      throw e;
    }
  }

  private static TrainingJob prepareAndStart(LocalSettings local, JobPlan plan,
      BuildContext context, PodmanTool tool, List<String> wrapper, Set<String> images,
      StateStore store, Path jobDir, ProgressListener listener) {
    PodmanReaper.ensureStarted(tool);
    SubmitSteps.noteSideContainers(plan, "podman", listener);
    for (String image : images) {
      if (!tool.imageExists(image)) {
        String step = "pull " + image;
        listener.onEvent(new ProgressEvent.StepStarted(step));
        Instant began = Instant.now();
        tool.pull(image);
        listener.onEvent(new ProgressEvent.StepFinished(step, Duration.between(began,
            Instant.now())));
      }
    }
    PodmanLauncher launcher = new PodmanLauncher(tool, jobDir);
    ContainerCleanup.record(jobDir,
        tool.removeByLabelCommand(PodmanLauncher.JOB_LABEL + "=" + launcher.jobId()));
    JobPorts ports = JobPorts.allocate(plan);
    Optional<StatusEndpoint> statusEndpoint = StatusEndpoint.forPlan(plan, jobDir);
    statusEndpoint.ifPresent(e -> e.issue(store.root()));
    HostRewriter rewriter = new HostRewriter(plan, ports);
    ContainerEnv containerEnv = new ContainerEnv(plan, rewriter);
    int gpus = SubmitSteps.gpus(plan);
    SubmitSteps.requireGpus(plan, gpus, local.ignoreGpuRequests(), "Clusters.podman()");
    Map<String, PreparedReplica> prepared = new LinkedHashMap<>();
    List<String> names = new ArrayList<>();
    for (ReplicaId id : plan.replicas()) {
      JobPlan.Container container = plan.group(id.type()).orElseThrow().pod().container();
      // The image brings PATH, HOME and the context's env; the pod adds its own on top.
      Map<String, String> env = new LinkedHashMap<>(containerEnv.resolve(container,
          PodFacts.of(plan, id, HostFacts.hostName()), context.env()));
      env.putAll(OperatorEnv.of(plan, id, ports, false));
      statusEndpoint.ifPresent(e -> env.putAll(e.env(true)));
      SubmitSteps.serverHost(plan, local, env);
      Map<String, String> defined = new LinkedHashMap<>(context.env());
      defined.putAll(env);
      List<String> devices = container.gpus() > 0 && gpus > 0
          ? GpuProbe.devices().stream().map(Path::toString).toList() : List.of();
      String name = launcher.containerName(id.podName());
      names.add(name);
      List<String> command = SignalDefaults.wrap(wrapper);
      command.addAll(tool.command(runArgs(name, id, launcher, container, env,
          expand(container.command(), defined, rewriter),
          expand(container.args(), defined, rewriter),
          binds(plan, id, local, jobDir, statusEndpoint), devices)));
      prepared.put(id.podName(), new PreparedReplica(id, command, jobDir, tool.env(),
          container.gpus()));
    }
    // A container under one of these names is a leftover of this job (a JVM killed with its
    // watchdog); podman run --name would refuse to start beside it.
    tool.remove(names);
    // Tied to this JVM: its watchdog removes the containers when the JVM dies.
    JobSupervisor supervisor = new JobSupervisor(plan, jobDir, store, launcher, prepared, ports,
        statusEndpoint, gpus, local.ignoreGpuRequests(), false, Instant.now(), listener);
    LiveJobs.register(jobDir, supervisor);
    supervisor.start();
    return new LocalTrainingJob(store, jobDir, plan.kind().kind(), plan.name(),
        plan.namespace(), local.killOnTimeout(), listener);
  }

  /** The pod's volumes, and the status server's files for a TrainJob. */
  private static List<LaunchSpec.Bind> binds(JobPlan plan, ReplicaId id, LocalSettings local,
      Path jobDir, Optional<StatusEndpoint> statusEndpoint) {
    List<LaunchSpec.Bind> binds = new ArrayList<>(VolumeBinder.binds(plan, id, local, jobDir));
    statusEndpoint.ifPresent(e -> binds.add(e.bind()));
    return binds;
  }

  /** The images the job runs, fully qualified; fails before anything runs if one is missing. */
  private static Set<String> images(JobPlan plan) {
    Set<String> images = new LinkedHashSet<>();
    for (JobPlan.Group group : plan.groups()) {
      String image = group.pod().container().image();
      if (image.isEmpty() || image.startsWith("fairing4j.local/")) {
        throw InvalidInputException.of("image", "the " + group.type() + " container names "
            + (image.isEmpty() ? "no image" : "the local placeholder " + image)
            + ", and podman runs images",
            "add .builder(Builders.jib(\"<base image>\").pushTo(\"<registry>/<repository>\"))"
                + " to the pipeline");
      }
      images.add(ImageRef.parse(image).toString());
    }
    return images;
  }

  /** {@code podman run ...} for one replica, without the podman binary. */
  public static List<String> runArgs(String name, ReplicaId id, PodmanLauncher launcher,
      JobPlan.Container container, Map<String, String> env, List<String> command,
      List<String> args, List<LaunchSpec.Bind> binds, List<String> devices) {
    List<String> run = new ArrayList<>(List.of("run", "--rm", "--pull", "never",
        // the operator's env names 127.0.0.1 and free host ports: the container shares them
        "--network", "host", "--name", name, "--hostname", id.podName(),
        // podman run streams the container's output itself; no log copy on disk
        "--log-driver", "none",
        "--label", PodmanLauncher.MANAGED_LABEL,
        "--label", PodmanLauncher.JOB_LABEL + "=" + launcher.jobId(),
        "--label", PodmanLauncher.SUPERVISOR_LABEL + "=" + PodmanReaper.SUPERVISOR,
        "--label", "fairing4j.dev/pod=" + id.podName()));
    container.workingDir().ifPresent(dir -> run.addAll(List.of("--workdir", dir)));
    env.forEach((key, value) -> run.addAll(List.of("--env", key + "=" + value)));
    for (LaunchSpec.Bind bind : binds) {
      if (bind.tmpfs()) {
        run.addAll(List.of("--tmpfs", bind.target()));
      } else {
        run.addAll(List.of("--volume", bind.host() + ":" + bind.target()
            + (bind.readOnly() ? ":ro" : "")));
      }
    }
    devices.forEach(device -> run.addAll(List.of("--device", device)));
    if (!command.isEmpty()) {
      // Kubernetes' command replaces the image's entrypoint and drops its CMD; so does this.
      try {
        run.addAll(List.of("--entrypoint", Mappers.JSON.writeValueAsString(command)));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException("a list of strings is always JSON", e);
      }
    }
    run.add(ImageRef.parse(container.image()).toString());
    run.addAll(args);
    return run;
  }

  private static List<String> expand(List<String> values, Map<String, String> defined,
      HostRewriter rewriter) {
    return values.stream().map(v -> rewriter.rewrite(EnvExpansion.expand(v, defined))).toList();
  }
}
