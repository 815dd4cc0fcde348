package dev.fairing4j.deployer.local;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.JobPhase;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.job.internal.RenderedJob;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Each replica prints its environment; the test compares it field by field with CONTRACT.md:
 * PyTorchJob (Master + 2 Workers), TFJob (Chief + PS + 2 Workers), Indexed Job (3 completions).
 * The printing script writes a marker to a shared claim and the deciding replica waits for all
 * markers, so no replica is stopped before it printed.
 */
@Timeout(60)
class LocalClusterEnvContractIT extends LocalClusterTestBase {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SCRIPT = String.join("\n",
      "import json, os, sys, time, uuid",
      "print('ENV ' + json.dumps(dict(os.environ), sort_keys=True), flush=True)",
      "open('/shared/' + uuid.uuid4().hex, 'w').close()",
      "tf = json.loads(os.environ.get('TF_CONFIG', '{}'))",
      "if os.environ.get('PET_NODE_RANK') == '0' or tf.get('task', {}).get('type') == 'chief':",
      "    deadline = time.time() + 30",
      "    while len(os.listdir('/shared')) < int(sys.argv[1]) and time.time() < deadline:",
      "        time.sleep(0.05)",
      "");

  @Test
  void pyTorchJobReplicasGetTheOperatorsEnvironment() throws Exception {
    Map<String, Object> container = Manifests.container("pytorch",
        List.of("python", "/app/printenv.py", "3"), Map.of("FOO", "bar"), 23456,
        "pytorchjob-port");
    container.put("volumeMounts", List.of(Manifests.mount("shared", "/shared")));
    RenderedJob job = Manifests.pyTorchJob("envpt", 2, container, "Never", Map.of(),
        List.of(Manifests.pvcVolume("shared", "envpt-shared")), null);

    Map<String, Map<String, String>> envs = run(job, 3);

    assertThat(envs).containsOnlyKeys("master-0", "worker-0", "worker-1");
    String port = envs.get("master-0").get("MASTER_PORT");
    assertThat(port).matches("[0-9]+").isNotEqualTo("23456");
    Map<String, String> rank = Map.of("master-0", "0", "worker-0", "1", "worker-1", "2");
    envs.forEach((replica, env) -> {
      Map<String, String> expected = new TreeMap<>(Map.ofEntries(
          Map.entry("PATH", "/.fairing4j/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:"
              + "/sbin:/bin"),
          Map.entry("HOME", "/root"),
          Map.entry("IMAGE_ENV", "from-context"),
          Map.entry("FOO", "bar"),
          Map.entry("PYTHONUNBUFFERED", "1"),
          Map.entry("PET_NPROC_PER_NODE", "auto"),
          Map.entry("PET_NNODES", "3"),
          Map.entry("MASTER_ADDR", "127.0.0.1"),
          Map.entry("PET_MASTER_ADDR", "127.0.0.1"),
          Map.entry("MASTER_PORT", port),
          Map.entry("PET_MASTER_PORT", port),
          Map.entry("WORLD_SIZE", "3"),
          Map.entry("RANK", rank.get(replica)),
          Map.entry("PET_NODE_RANK", rank.get(replica))));
      // Exactly these: nothing of the JVM's environment leaks into a replica. Two come from
      // the runtime, not the manifest: bwrap sets PWD for --chdir, and Python's locale
      // coercion (PEP 538) sets LC_CTYPE under the C locale, as it does in a container.
      Map<String, String> actual = new TreeMap<>(env);
      assertThat(actual.remove("PWD")).isEqualTo("/app");
      actual.remove("LC_CTYPE");
      assertThat(actual).as(replica).isEqualTo(expected);
    });
  }

  @Test
  void tfJobReplicasGetTfConfigWithLoopbackAddresses() throws Exception {
    RenderedJob base = Manifests.tfJob("envtf", 2,
        List.of("python", "/app/printenv.py", "4"));
    RenderedJob job = withSharedClaim(base, "tfReplicaSpecs", "envtf-shared");

    Map<String, Map<String, String>> envs = run(job, 4);

    assertThat(envs).containsOnlyKeys("chief-0", "ps-0", "worker-0", "worker-1");
    // The cluster part is the same for every replica; read the ports from the chief's.
    Map<String, Object> config = JSON.readValue(envs.get("chief-0").get("TF_CONFIG"),
        new TypeReference<>() {});
    @SuppressWarnings("unchecked")
    Map<String, List<String>> cluster = (Map<String, List<String>>) config.get("cluster");
    List<String> addresses = new ArrayList<>();
    cluster.values().forEach(addresses::addAll);
    assertThat(addresses).hasSize(4).allMatch(a -> a.matches("127\\.0\\.0\\.1:[0-9]+"))
        .noneMatch(a -> a.endsWith(":2222")).doesNotHaveDuplicates();
    String clusterJson = "{\"chief\":[\"" + cluster.get("chief").get(0) + "\"],\"ps\":[\""
        + cluster.get("ps").get(0) + "\"],\"worker\":[\"" + cluster.get("worker").get(0)
        + "\",\"" + cluster.get("worker").get(1) + "\"]}";
    Map<String, String> task = Map.of("chief-0", "{\"type\":\"chief\",\"index\":0}",
        "ps-0", "{\"type\":\"ps\",\"index\":0}", "worker-0", "{\"type\":\"worker\",\"index\":0}",
        "worker-1", "{\"type\":\"worker\",\"index\":1}");
    envs.forEach((replica, env) -> {
      assertThat(env.get("TF_CONFIG")).as(replica).isEqualTo("{\"cluster\":" + clusterJson
          + ",\"task\":" + task.get(replica) + ",\"environment\":\"cloud\"}");
      // TFJob gets TF_CONFIG only: none of PyTorchJob's variables.
      assertThat(env).as(replica).doesNotContainKeys("MASTER_ADDR", "RANK", "WORLD_SIZE",
          "PYTHONUNBUFFERED", "PET_NNODES");
    });
  }

  @Test
  void indexedJobPodsGetTheirCompletionIndexAndLocalRankEnvironment() throws Exception {
    RenderedJob base = Manifests.indexedJob("envix", 3,
        List.of("python", "/app/printenv.py", "3"));
    RenderedJob job = withSharedClaim(base, null, "envix-shared");

    Map<String, Map<String, String>> envs = run(job, 3);

    assertThat(envs).containsOnlyKeys("pod-0", "pod-1", "pod-2");
    String port = envs.get("pod-0").get("MASTER_PORT");
    assertThat(port).matches("[0-9]+").isNotEqualTo("29500");
    for (int i = 0; i < 3; i++) {
      Map<String, String> env = envs.get("pod-" + i);
      assertThat(env).as("pod-" + i)
          .containsEntry("JOB_COMPLETION_INDEX", String.valueOf(i))
          .containsEntry("RANK", String.valueOf(i))
          .containsEntry("WORLD_SIZE", "3")
          .containsEntry("MASTER_ADDR", "127.0.0.1")
          .containsEntry("MASTER_PORT", port)
          .containsEntry("POD_NAME", "envix-" + i)
          .doesNotContainKeys("PET_NNODES", "TF_CONFIG");
    }
  }

  private Map<String, Map<String, String>> run(RenderedJob job, int replicas) throws Exception {
    BuildContext context = BuildContext.empty()
        .withFile("/app/printenv.py", ContextFile.ofText(SCRIPT))
        .withEnv("IMAGE_ENV", "from-context")
        .withCommand(List.of("python", "/app/printenv.py"));
    LocalCluster cluster = LocalCluster.create().stateDir(state).volumesDir(volumes);
    TrainingJob handle = cluster.submit(job, context, SubmitOptions.DEFAULT,
        ProgressListener.NONE);
    JobStatus end = handle.waitForCompletion(Duration.ofSeconds(45));

    assertThat(end.phase()).isEqualTo(JobPhase.SUCCEEDED);
    assertThat(end.pods()).hasSize(replicas).extracting(PodInfo::name)
        .allMatch(n -> n.startsWith(job.name() + "-"));
    Map<String, Map<String, String>> envs = new TreeMap<>();
    for (LogLine line : handle.logs().snapshot()) {
      if (line.text().startsWith("ENV ")) {
        envs.put(line.replica(), JSON.readValue(line.text().substring(4),
            new TypeReference<Map<String, String>>() {}));
      }
    }
    return envs;
  }

  @SuppressWarnings("unchecked")
  private static RenderedJob withSharedClaim(RenderedJob job, String replicaKey, String claim) {
    Map<String, Object> object = copy(job.trainingObject());
    Map<String, Object> spec = (Map<String, Object>) object.get("spec");
    List<Map<String, Object>> podSpecs = new ArrayList<>();
    if (replicaKey == null) {
      podSpecs.add((Map<String, Object>) ((Map<String, Object>) spec.get("template"))
          .get("spec"));
    } else {
      for (Object replicaSpec : ((Map<String, Object>) spec.get(replicaKey)).values()) {
        podSpecs.add((Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>)
            replicaSpec).get("template")).get("spec"));
      }
    }
    for (Map<String, Object> podSpec : podSpecs) {
      podSpec.put("volumes", List.of(Manifests.pvcVolume("shared", claim)));
      for (Object c : (List<Object>) podSpec.get("containers")) {
        ((Map<String, Object>) c).put("volumeMounts",
            List.of(Manifests.mount("shared", "/shared")));
      }
    }
    List<Map<String, Object>> objects = new ArrayList<>(job.objects());
    objects.set(objects.size() - 1, object);
    return new RenderedJob(job.kind(), job.name(), job.namespace(), objects);
  }

  /** A deep, mutable copy of a JSON-like map. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> copy(Map<String, Object> map) {
    try {
      return JSON.readValue(JSON.writeValueAsBytes(map), Map.class);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

}
