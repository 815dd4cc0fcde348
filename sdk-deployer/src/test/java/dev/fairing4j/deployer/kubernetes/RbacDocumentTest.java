package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.deployer.Fixtures;
import dev.fairing4j.deployer.kubernetes.internal.transport.ApiErrors;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeRest;
import dev.fairing4j.deployer.kubernetes.internal.transport.Operation;
import dev.fairing4j.deployer.kubernetes.internal.transport.Redactor;
import dev.fairing4j.deployer.kubernetes.internal.transport.ResourceRef;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/rbac.yaml as a document: a Role, a ClusterRole and their bindings to the ServiceAccount
 * fairing4j, least privilege, and every rule a 403 error of the SDK's own operations asks for is
 * in it. {@link RbacDocumentIT} applies it to a real API server and runs the SDK under it.
 */
class RbacDocumentTest {
  static final Path RBAC = Path.of("..", "docs", "rbac.yaml");

  /** One permission: API group, resource (with subresource), verb, and whether namespaced. */
  record Grant(String group, String resource, String verb, boolean namespaced) {}

  @Test
  void theDocumentHoldsARoleAndAClusterRoleBoundToTheServiceAccount() {
    List<Map<String, Object>> docs = documents();
    assertThat(docs).extracting(d -> d.get("kind")).containsExactly("ServiceAccount", "Role",
        "RoleBinding", "ClusterRole", "ClusterRoleBinding");
    for (Map<String, Object> binding : docs) {
      if (String.valueOf(binding.get("kind")).endsWith("Binding")) {
        String roleKind = String.valueOf(binding.get("kind")).replace("Binding", "");
        assertThat(Fixtures.<String>at(binding, "roleRef", "kind")).isEqualTo(roleKind);
        assertThat(Fixtures.<String>at(binding, "roleRef", "name")).isEqualTo("fairing4j");
        assertThat(Fixtures.<Map<String, Object>>at(binding, "subjects", 0))
            .containsEntry("kind", "ServiceAccount").containsEntry("name", "fairing4j")
            .containsEntry("namespace", "kubeflow");
      }
    }
    // Least privilege: cluster-wide only volumes, namespace reads, the node and pod reads of
    // topNodes() and the Trainer's cluster-wide runtimes; no wildcards.
    assertThat(grants(false)).extracting(Grant::resource)
        .containsOnly("persistentvolumes", "namespaces", "nodes", "pods",
            "clustertrainingruntimes");
    assertThat(grants(true)).noneMatch(g -> g.verb().equals("*") || g.resource().equals("*"));
  }

  @Test
  void everyRuleA403HintAsksForIsGranted() {
    List<Operation> operations = new ArrayList<>();
    Optional<String> ns = Optional.of("kubeflow");
    for (String kind : List.of("PyTorchJob", "TFJob")) {
      ResourceRef job = ResourceRef.of("kubeflow.org/v1", kind);
      operations.add(Operation.on("get", job, ns, "mnist"));
      operations.add(Operation.create(job, ns, "mnist"));
      operations.add(Operation.on("delete", job, ns, "mnist"));
      operations.add(Operation.onCollection("list", job, ns));
    }
    ResourceRef trainJob = ResourceRef.of("trainer.kubeflow.org/v1alpha1", "TrainJob");
    operations.add(Operation.on("get", trainJob, ns, "mnist"));
    operations.add(Operation.create(trainJob, ns, "mnist"));
    operations.add(Operation.on("delete", trainJob, ns, "mnist"));
    operations.add(Operation.on("patch", trainJob, ns, "mnist"));
    operations.add(Operation.onCollection("list", trainJob, ns));
    ResourceRef runtime = ResourceRef.of("trainer.kubeflow.org/v1alpha1", "TrainingRuntime");
    operations.add(Operation.on("get", runtime, ns, "torch-distributed"));
    operations.add(Operation.onCollection("list", runtime, ns));
    ResourceRef clusterRuntime = ResourceRef.of("trainer.kubeflow.org/v1alpha1",
        "ClusterTrainingRuntime");
    operations.add(Operation.on("get", clusterRuntime, Optional.empty(), "torch-distributed"));
    operations.add(Operation.onCollection("list", clusterRuntime, Optional.empty()));
    ResourceRef batch = ResourceRef.of("batch/v1", "Job");
    operations.add(Operation.on("get", batch, ns, "mnist"));
    operations.add(Operation.create(batch, ns, "mnist"));
    operations.add(Operation.on("delete", batch, ns, "mnist"));
    for (String kind : List.of("Service", "Secret", "PersistentVolumeClaim")) {
      ResourceRef dependency = ResourceRef.of("v1", kind);
      operations.add(Operation.create(dependency, ns, "x"));
      operations.add(Operation.on("get", dependency, ns, "x"));
      operations.add(Operation.on("patch", dependency, ns, "x"));
      operations.add(Operation.on("delete", dependency, ns, "x"));
    }
    operations.add(Operation.onCollection("list", ResourceRef.PODS, ns));
    operations.add(Operation.on("get", ResourceRef.PODS, ns, "mnist-master-0"));
    operations.add(Operation.on("get", ResourceRef.PODS, ns, "mnist-master-0").sub("log"));
    operations.add(Operation.onCollection("list", ResourceRef.EVENTS, ns));
    ResourceRef volumes = ResourceRef.of("v1", "PersistentVolume");
    operations.add(Operation.on("get", volumes, Optional.empty(), "models"));
    operations.add(Operation.create(volumes, Optional.empty(), "models"));
    operations.add(Operation.on("get", ResourceRef.NAMESPACES, Optional.empty(), "kubeflow"));

    Pattern rule = Pattern.compile("apiGroups: \\[\"([^\"]*)\"]\\s+resources: \\[\"([^\"]+)\"]"
        + "\\s+verbs: \\[\"([^\"]+)\"]");
    for (Operation operation : operations) {
      KubernetesApiException denial = ApiErrors.translate(operation,
          new KubeRest.Response(403, ""), n -> Optional.empty(), Redactor.NONE);
      String hint = denial.hint().orElseThrow();
      Matcher asked = rule.matcher(hint);
      assertThat(asked.find()).as(hint).isTrue();
      boolean namespaced = hint.contains("a Role in namespace");
      assertThat(grants(namespaced)).as("%s asks for %s", operation.what(), hint)
          .contains(new Grant(asked.group(1), asked.group(2), asked.group(3), namespaced));
    }
  }

  static Set<Grant> grants(boolean namespaced) {
    Set<Grant> result = new HashSet<>();
    for (Map<String, Object> doc : documents()) {
      if (!doc.get("kind").equals(namespaced ? "Role" : "ClusterRole")) {
        continue;
      }
      List<Map<String, Object>> rules = Fixtures.at(doc, "rules");
      for (Map<String, Object> rule : rules) {
        for (Object group : (List<?>) rule.get("apiGroups")) {
          for (Object resource : (List<?>) rule.get("resources")) {
            for (Object verb : (List<?>) rule.get("verbs")) {
              result.add(new Grant(String.valueOf(group), String.valueOf(resource),
                  String.valueOf(verb), namespaced));
            }
          }
        }
      }
    }
    return result;
  }

  private static List<Map<String, Object>> documents() {
    try {
      return Fixtures.parse(Files.readString(RBAC));
    } catch (IOException e) {
      throw new AssertionError("docs/rbac.yaml is missing: " + RBAC.toAbsolutePath(), e);
    }
  }
}
