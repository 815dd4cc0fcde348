package dev.fairing4j.deployer.local.internal.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.deployer.job.internal.RenderedJob;
import dev.fairing4j.deployer.local.Manifests;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A container's own env, resolved locally as the kubelet would resolve it on a node. */
class ContainerEnvTest {
  @Test
  void resolvesDownwardApiFieldsExpansionAndLocalAddresses() {
    RenderedJob job = Manifests.indexedJob("ix", 2, List.of("python", "t.py"));
    JobPlan plan = ManifestReader.read(job);
    JobPorts ports = JobPorts.allocate(plan);
    ReplicaId pod1 = plan.replicas().get(1);
    ContainerEnv env = new ContainerEnv(plan, new HostRewriter(plan, ports));

    Map<String, String> resolved = env.resolve(plan.groups().get(0).pod().container(),
        PodFacts.of(plan, pod1, "node-a"), Map.of());

    assertThat(resolved).containsEntry("RANK", "1").containsEntry("WORLD_SIZE", "2")
        .containsEntry("MASTER_ADDR", "127.0.0.1").containsEntry("POD_NAME", "ix-1")
        .containsEntry("MASTER_PORT", String.valueOf(ports.local("ix-0", 29500).orElseThrow()));
  }

  @Test
  void expandsEarlierVariablesAndKeepsEscapesAndUnknownReferences() {
    Map<String, Object> container = containerWithEnv(List.of(
        Map.of("name", "BASE", "value", "/opt/data"),
        Map.of("name", "TRAIN", "value", "$(BASE)/train"),
        Map.of("name", "LITERAL", "value", "$$(BASE) and $(UNKNOWN)"),
        Map.of("name", "ENDPOINT", "value", "m-master-0.default.svc:23456"),
        Map.of("name", "NODE", "valueFrom", Map.of("fieldRef",
            Map.of("fieldPath", "spec.nodeName"))),
        Map.of("name", "TYPE", "valueFrom", Map.of("fieldRef", Map.of("fieldPath",
            "metadata.labels['training.kubeflow.org/replica-type']")))));
    JobPlan plan = plan(container, List.of());
    JobPorts ports = JobPorts.allocate(plan);

    Map<String, String> env = new ContainerEnv(plan, new HostRewriter(plan, ports)).resolve(
        plan.groups().get(0).pod().container(), PodFacts.of(plan, plan.replicas().get(0), "n1"),
        Map.of());

    assertThat(env).containsEntry("TRAIN", "/opt/data/train")
        .containsEntry("LITERAL", "$(BASE) and $(UNKNOWN)")
        .containsEntry("ENDPOINT", "127.0.0.1:"
            + ports.local("m-master-0", 23456).orElseThrow())
        .containsEntry("NODE", "n1").containsEntry("TYPE", "master");
  }

  @Test
  void readsConfigMapAndSecretKeysRenderedWithTheJob() {
    Map<String, Object> container = containerWithEnv(List.of(
        Map.of("name", "LR", "valueFrom", Map.of("configMapKeyRef",
            Map.of("name", "params", "key", "lr"))),
        Map.of("name", "TOKEN", "valueFrom", Map.of("secretKeyRef",
            Map.of("name", "creds", "key", "token")))));
    container.put("envFrom", List.of(Map.of("configMapRef", Map.of("name", "params"),
        "prefix", "P_")));
    List<Map<String, Object>> deps = List.of(
        Map.of("kind", "ConfigMap", "metadata", Map.of("name", "params"),
            "data", Map.of("lr", "0.01")),
        Map.of("kind", "Secret", "metadata", Map.of("name", "creds"),
            "data", Map.of("token", Base64.getEncoder().encodeToString("s3cr3t".getBytes()))));
    JobPlan plan = plan(container, deps);

    Map<String, String> env = new ContainerEnv(plan, new HostRewriter(plan,
        JobPorts.allocate(plan))).resolve(plan.groups().get(0).pod().container(),
        PodFacts.of(plan, plan.replicas().get(0), "n"), Map.of());

    assertThat(env).containsEntry("LR", "0.01").containsEntry("TOKEN", "s3cr3t")
        .containsEntry("P_lr", "0.01");
  }

  @Test
  void aReferenceThatCannotBeResolvedLocallyNamesTheVariable() {
    Map<String, Object> container = containerWithEnv(List.of(Map.of("name", "TOKEN",
        "valueFrom", Map.of("secretKeyRef", Map.of("name", "absent", "key", "t")))));
    JobPlan plan = plan(container, List.of());
    ContainerEnv env = new ContainerEnv(plan, new HostRewriter(plan, JobPorts.allocate(plan)));

    assertThatThrownBy(() -> env.resolve(plan.groups().get(0).pod().container(),
        PodFacts.of(plan, plan.replicas().get(0), "n"), Map.of()))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("env TOKEN");
          assertThat(e.getMessage()).contains("Secret 'absent'");
        });
  }

  @Test
  void resourceFieldRefsReadTheContainersLimits() {
    Map<String, Object> container = containerWithEnv(List.of(
        Map.of("name", "CPUS", "valueFrom", Map.of("resourceFieldRef",
            Map.of("resource", "limits.cpu"))),
        Map.of("name", "MEM_MI", "valueFrom", Map.of("resourceFieldRef",
            Map.of("resource", "limits.memory", "divisor", "1Mi")))));
    container.put("resources", Map.of("limits", Map.of("cpu", "1500m", "memory", "4Gi")));
    JobPlan plan = plan(container, List.of());

    Map<String, String> env = new ContainerEnv(plan, new HostRewriter(plan,
        JobPorts.allocate(plan))).resolve(plan.groups().get(0).pod().container(),
        PodFacts.of(plan, plan.replicas().get(0), "n"), Map.of());

    assertThat(env).containsEntry("CPUS", "2").containsEntry("MEM_MI", "4096");
  }

  private static Map<String, Object> containerWithEnv(List<Map<String, Object>> env) {
    Map<String, Object> container = Manifests.container("pytorch", List.of("python", "t.py"),
        Map.of(), 23456, "pytorchjob-port");
    container.put("env", env);
    return container;
  }

  private static JobPlan plan(Map<String, Object> container, List<Map<String, Object>> deps) {
    RenderedJob base = Manifests.pyTorchJob("m", 0, container, "Never", Map.of(), List.of(),
        null);
    List<Map<String, Object>> objects = new ArrayList<>(deps);
    objects.add(new LinkedHashMap<>(base.trainingObject()));
    return ManifestReader.read(new RenderedJob(base.kind(), base.name(), base.namespace(),
        objects));
  }
}
