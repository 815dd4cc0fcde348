package dev.fairing4j.deployer.local.internal.supervisor;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.deployer.job.internal.Mappers;
import dev.fairing4j.deployer.job.internal.RenderedJob;
import dev.fairing4j.deployer.local.internal.plan.JobPlan;
import dev.fairing4j.deployer.local.internal.plan.JobPorts;
import dev.fairing4j.deployer.local.internal.plan.ManifestReader;
import dev.fairing4j.deployer.local.internal.plan.PreparedReplica;
import dev.fairing4j.deployer.local.internal.plan.ReplicaId;
import dev.fairing4j.deployer.local.internal.runtime.Bubblewrap;
import dev.fairing4j.deployer.local.internal.runtime.ReplicaLauncher;
import dev.fairing4j.deployer.local.internal.runtime.Sandbox;
import dev.fairing4j.deployer.local.internal.runtime.Unsandboxed;
import dev.fairing4j.deployer.local.internal.trainerstatus.StatusEndpoint;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything a supervisor process needs to run a job the submitting JVM prepared
 * ({@code <job>/supervisor.json}): the manifest (the plan is read from it again, the same way),
 * each replica's finished command line and environment, the ports, the GPU facts. Worked out once
 * at submit, so the supervisor probes nothing and every (re)start runs the same thing.
 *
 * @param kind the job kind
 * @param name the job name
 * @param namespace the namespace
 * @param manifest the rendered objects
 * @param createdAt when it was submitted
 * @param sandbox how replicas run: {@code bwrap} or {@code none}
 * @param replicas each replica's launch
 * @param ports declared ports mapped to local ports, per pod
 * @param gpusAvailable NVIDIA GPUs on this machine
 * @param ignoreGpus run replicas that request GPUs anyway
 * @param statusPort the port of a TrainJob's status server; null for other kinds
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SupervisorSpec(String kind, String name, String namespace,
    List<Map<String, Object>> manifest, String createdAt, String sandbox,
    List<Replica> replicas, Map<String, Map<Integer, Integer>> ports, int gpusAvailable,
    boolean ignoreGpus, Integer statusPort) {

  static final String FILE = "supervisor.json";

  /**
   * One replica's launch.
   *
   * @param podName the pod name
   * @param command the host command line
   * @param directory the host directory it starts in
   * @param env the complete environment
   * @param gpus GPUs it requests
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record Replica(String podName, List<String> command, String directory,
      Map<String, String> env, long gpus) {}

  /** The spec of a prepared job. */
  public static SupervisorSpec of(JobPlan plan, Instant created, Sandbox sandbox,
      Map<String, PreparedReplica> prepared, JobPorts ports,
      Optional<StatusEndpoint> statusEndpoint, int gpusAvailable, boolean ignoreGpus) {
    List<Replica> list = prepared.values().stream().map(p -> new Replica(p.id().podName(),
        p.command(), p.directory().toString(), p.env(), p.gpus())).toList();
    return new SupervisorSpec(plan.kind().kind(), plan.name(), plan.namespace(), plan.objects(),
        created.toString(), sandbox.toString(), list, ports.byPod(), gpusAvailable, ignoreGpus,
        statusEndpoint.map(StatusEndpoint::port).orElse(null));
  }

  /** Where the job's status server listens, for a TrainJob. */
  Optional<StatusEndpoint> statusEndpoint(Path jobDir) {
    return Optional.ofNullable(statusPort).map(port -> StatusEndpoint.of(port, jobDir, namespace,
        name));
  }

  /** The plan, read from the manifest as at submit. */
  JobPlan plan() {
    return ManifestReader.read(new RenderedJob(kind, name, namespace, manifest));
  }

  /** The prepared replicas by pod name, in start order. */
  Map<String, PreparedReplica> prepared(JobPlan plan) {
    Map<String, PreparedReplica> byPod = new LinkedHashMap<>();
    for (ReplicaId id : plan.replicas()) {
      Replica r = replicas.stream().filter(x -> x.podName().equals(id.podName())).findFirst()
          .orElseThrow(() -> new IllegalStateException("no launch for " + id.podName()));
      byPod.put(id.podName(), new PreparedReplica(id, r.command(), Path.of(r.directory()),
          r.env(), r.gpus()));
    }
    return byPod;
  }

  /** How replicas are told apart from their wrapper when stopped. */
  ReplicaLauncher launcher() {
    return sandbox.equals("bwrap") ? Bubblewrap.LAUNCHER : Unsandboxed.LAUNCHER;
  }

  /** Writes the spec into {@code jobDir}, whole or not at all. */
  void write(Path jobDir) {
    try {
      Path tmp = Files.createTempFile(jobDir, FILE + ".", ".tmp");
      Mappers.JSON.writeValue(tmp.toFile(), this);
      try {
        Files.move(tmp, jobDir.resolve(FILE), StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, jobDir.resolve(FILE));
      }
    } catch (IOException e) {
      throw FairingException.of("submit job locally", jobDir.toString(), e.toString(),
          "check free disk space in the state directory", e);
    }
  }

  /** Loads and initialises the spec's reader (see {@link SupervisorMain}). */
  static void warmUp() {
    try {
      SupervisorSpec spec = Mappers.JSON.readValue("{\"kind\":\"PyTorchJob\",\"name\":\"w\","
          + "\"namespace\":\"default\",\"manifest\":[{\"kind\":\"PyTorchJob\",\"spec\":{"
          + "\"pytorchReplicaSpecs\":{\"Master\":{\"replicas\":1,\"template\":{\"spec\":{"
          + "\"containers\":[{\"name\":\"pytorch\",\"image\":\"i\"}]}}}}}}],"
          + "\"sandbox\":\"bwrap\",\"replicas\":[{\"podName\":\"w-master-0\","
          + "\"command\":[\"true\"],\"directory\":\"/\",\"env\":{},\"gpus\":0}],"
          + "\"ports\":{\"w-master-0\":{\"23456\":1}}}", SupervisorSpec.class);
      JobPlan plan = spec.plan();
      spec.prepared(plan);
    } catch (IOException | RuntimeException e) {
      // only a warm-up: the real spec reports what is wrong with it
    }
  }

  /** Reads the spec in {@code jobDir}. */
  static SupervisorSpec read(Path jobDir) throws IOException {
    return Mappers.JSON.readValue(jobDir.resolve(FILE).toFile(), SupervisorSpec.class);
  }
}
