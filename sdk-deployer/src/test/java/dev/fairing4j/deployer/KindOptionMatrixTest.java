package dev.fairing4j.deployer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.testing.CrdSchemaValidator;
import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.deployer.job.RestartPolicy;
import dev.fairing4j.deployer.kubeflow.CleanPodPolicy;
import dev.fairing4j.deployer.kubeflow.PyTorchJobDeployer;
import dev.fairing4j.deployer.kubeflow.SchedulingPolicy;
import dev.fairing4j.deployer.kubeflow.SuccessPolicy;
import dev.fairing4j.deployer.kubeflow.TfJobDeployer;
import dev.fairing4j.deployer.kubeflow.XGBoostJobDeployer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every job kind (in several shapes) crossed with every common option and every mutator: each
 * combination is rendered, validated against the real CRD schema, the webhook rules and the pod
 * rules, parsed back, and checked for the option's effect.
 */
class KindOptionMatrixTest {
  private static final CrdSchemaValidator VALIDATOR = CrdSchemaValidator.load();
  private static final Map<String, Object> ZONES = Map.of("key", "zone", "operator", "In",
      "values", List.of("a", "b"));
  private static final Map<String, Object> AFFINITY = Map.of("nodeAffinity", Map.of(
      "requiredDuringSchedulingIgnoredDuringExecution", Map.of("nodeSelectorTerms",
          List.of(Map.of("matchExpressions", List.of(ZONES))))));

  record Shape(String name, Supplier<JobDeployer<?>> make) {
    @Override
    public String toString() {
      return name;
    }
  }

  record Option(String name, UnaryOperator<JobDeployer<?>> apply,
      BiConsumer<Map<String, Object>, List<Map<String, Object>>> check) {
    @Override
    public String toString() {
      return name;
    }
  }

  static List<Shape> shapes() {
    return List.of(
        new Shape("PyTorchJob master only", () -> Deployers.pyTorchJob("mnist")),
        new Shape("PyTorchJob 1+3", () -> Deployers.pyTorchJob("mnist").workers(3)),
        new Shape("PyTorchJob elastic ExitCode", () -> Deployers.pyTorchJob("mnist").workers(2)
            .elastic(1, 4).nprocPerNode("2").restartPolicy(RestartPolicy.EXIT_CODE)),
        new Shape("TFJob default", () -> Deployers.tfJob("mnist")),
        new Shape("TFJob chief+ps+workers+evaluator", () -> Deployers.tfJob("mnist").chief(1)
            .ps(2).workers(3).evaluator(1).successPolicy(SuccessPolicy.ALL_WORKERS)),
        new Shape("XGBoostJob master only", () -> Deployers.xgboostJob("mnist")),
        new Shape("XGBoostJob 1+2", () -> Deployers.xgboostJob("mnist").workers(2)),
        new Shape("Job single", () -> Deployers.batchJob("mnist")),
        new Shape("Job distributed 3", () -> Deployers.batchJob("mnist").replicas(3)));
  }

  static List<Option> options() {
    List<Option> options = new ArrayList<>();
    options.add(new Option("defaults", d -> d, (object, docs) -> {
      assertThat(Fixtures.<String>at(object, "metadata", "namespace")).isEqualTo("default");
      assertThat(Fixtures.<String>at(object, "metadata", "labels",
          "app.kubernetes.io/managed-by")).isEqualTo("fairing4j");
      assertThat(Fixtures.<String>at(object, "metadata", "labels", "fairing4j.dev/run-id"))
          .matches("[0-9a-f]{12}");
      Manifests.podTemplates(object).forEach(template -> assertThat(Fixtures.<Object>at(template,
          "metadata", "labels", "fairing4j.dev/run-id")).isEqualTo(Fixtures.at(object,
              "metadata", "labels", "fairing4j.dev/run-id")));
      Manifests.trainingContainers(object).forEach(container -> assertThat(container.get("image"))
          .isEqualTo(Fixtures.image().reference()));
    }));
    options.add(new Option("namespace", d -> d.namespace("team-a"), (object, docs) ->
        docs.forEach(doc -> assertThat(Fixtures.<String>at(doc, "metadata", "namespace"))
            .isEqualTo("team-a"))));
    options.add(new Option("labels and annotations",
        d -> d.label("team", "vision").annotations(Map.of("example.com/owner", "ada")),
        (object, docs) -> {
          docs.forEach(doc -> assertThat(Fixtures.<String>at(doc, "metadata", "labels", "team"))
              .isEqualTo("vision"));
          assertThat(Fixtures.<String>at(object, "metadata", "annotations", "example.com/owner"))
              .isEqualTo("ada");
          Manifests.podTemplates(object).forEach(template -> {
            assertThat(Fixtures.<String>at(template, "metadata", "labels", "team"))
                .isEqualTo("vision");
            assertThat(Fixtures.<String>at(template, "metadata", "annotations",
                "example.com/owner")).isEqualTo("ada");
          });
        }));
    options.add(new Option("disableIstioSidecar", d -> d.disableIstioSidecar(), (object, docs) ->
        Manifests.podTemplates(object).forEach(template -> assertThat(Fixtures.<Object>at(
            template, "metadata", "annotations", "sidecar.istio.io/inject")).isEqualTo("false"))));
    options.add(new Option("uniqueName", d -> d.uniqueName(), (object, docs) -> {
      String name = Fixtures.at(object, "metadata", "name");
      assertThat(name).matches("mnist-[a-z0-9]{5}");
      docs.forEach(doc -> assertThat(Fixtures.<String>at(doc, "metadata", "name"))
          .isEqualTo(name));
      Manifests.podTemplates(object).forEach(template -> assertThat(Fixtures.<String>at(
          template, "metadata", "labels", "fairing4j.dev/job-name")).isEqualTo(name));
    }));
    options.add(new Option("args and env", d -> d.args("--epochs=1", "--lr", "0.01")
        .env("EPOCHS", "1").env("DEBUG", "true"), (object, docs) ->
        Manifests.trainingContainers(object).forEach(container -> {
          assertThat(Fixtures.<List<String>>at(container, "args"))
              .containsExactly("--epochs=1", "--lr", "0.01");
          assertThat(Fixtures.<List<String>>at(container, "command"))
              .containsExactly("python", "-u", "/app/mnist.py");
          assertThat(Manifests.env(container, "EPOCHS")).containsEntry("value", "1");
          assertThat(Manifests.env(container, "DEBUG")).containsEntry("value", "true");
        })));
    options.add(new Option("kueueQueue and runId", d -> d.kueueQueue("team-a-queue")
        .runId("exp-42"), (object, docs) -> {
          assertThat(Fixtures.<String>at(object, "metadata", "labels",
              "kueue.x-k8s.io/queue-name")).isEqualTo("team-a-queue");
          Manifests.podTemplates(object).forEach(template -> {
            assertThat(Fixtures.<Object>at(template, "metadata", "labels",
                "kueue.x-k8s.io/queue-name")).isNull();
            assertThat(Fixtures.<String>at(template, "metadata", "labels",
                "fairing4j.dev/run-id")).isEqualTo("exp-42");
          });
        }));
    options.add(new Option("lifecycle limits", d -> d.backoffLimit(3).activeDeadlineSeconds(3600)
        .ttlSecondsAfterFinished(600).suspend(true), (object, docs) -> {
          Map<String, Object> where = object.get("kind").equals("Job")
              ? Fixtures.at(object, "spec") : Fixtures.at(object, "spec", "runPolicy");
          assertThat(where).containsEntry("backoffLimit", 3)
              .containsEntry("activeDeadlineSeconds", 3600)
              .containsEntry("ttlSecondsAfterFinished", 600).containsEntry("suspend", true);
        }));
    options.add(new Option("replaceExisting", d -> d.replaceExisting(), (object, docs) -> { }));
    options.add(new Option("resources", d -> d.mutate(Mutators.resources("2", "4Gi")).mutate(Mutators.gpus(1)),
        (object, docs) -> Manifests.podTemplates(object).forEach(template -> {
          Map<String, Object> container = Manifests.container(template,
              Manifests.trainingContainer(object));
          assertThat(Fixtures.<Object>at(container, "resources", "requests", "memory"))
              .isEqualTo("4Gi");
          assertThat(Fixtures.<Object>at(container, "resources", "limits", "cpu")).isEqualTo("2");
        })));
    options.add(new Option("amd gpus", d -> d.mutate(Mutators.gpus(2).amd()), (object, docs) -> {
      List<Map<String, Object>> containers = Manifests.trainingContainers(object);
      containers.forEach(container -> assertThat(Fixtures.<Object>at(container, "resources",
          "limits", "nvidia.com/gpu")).isNull());
      assertThat(containers).anySatisfy(container -> assertThat(Fixtures.<Object>at(container,
          "resources", "limits", "amd.com/gpu")).isEqualTo("2"));
    }));
    options.add(new Option("volumes", d -> d
        .mutate(Mutators.pvc("training-data", "/data").readOnly().subPath("mnist"))
        .mutate(Mutators.secretVolume("aws-credentials", "/etc/aws"))
        .mutate(Mutators.configMapVolume("train-config", "/etc/train"))
        .mutate(Mutators.emptyDir("scratch", "/scratch"))
        .mutate(Mutators.hostPath("/mnt/cache", "/cache"))
        .mutate(Mutators.sharedMemory("2Gi")), (object, docs) ->
        Manifests.podTemplates(object).forEach(template -> {
          List<Map<String, Object>> volumes = Fixtures.at(template, "spec", "volumes");
          assertThat(volumes).extracting(v -> (String) v.get("name")).satisfiesExactly(
              name -> assertThat(name).isEqualTo("training-data"),
              name -> assertThat(name).isEqualTo("secret-aws-credentials"),
              name -> assertThat(name).isEqualTo("configmap-train-config"),
              name -> assertThat(name).isEqualTo("scratch"),
              name -> assertThat(name).matches("host-mnt-cache-[0-9a-f]{8}"),
              name -> assertThat(name).isEqualTo("dshm"));
          Map<String, Object> container = Manifests.container(template,
              Manifests.trainingContainer(object));
          List<Map<String, Object>> mounts = Fixtures.at(container, "volumeMounts");
          assertThat(mounts).extracting(m -> m.get("mountPath")).containsExactly("/data",
              "/etc/aws", "/etc/train", "/scratch", "/cache", "/dev/shm");
          assertThat(mounts.get(0)).containsEntry("readOnly", true)
              .containsEntry("subPath", "mnist");
          assertThat(Fixtures.<Object>at(volumes.get(3), "emptyDir")).isEqualTo(Map.of());
        })));
    options.add(new Option("env mutators", d -> d.env("LR", "0.01")
        .mutate(Mutators.envFromSecret("WANDB_API_KEY", "wandb", "api-key")), (object, docs) ->
        Manifests.trainingContainers(object).forEach(container -> {
          assertThat(Manifests.env(container, "LR")).containsEntry("value", "0.01");
          assertThat(Fixtures.<Object>at(Manifests.env(container, "WANDB_API_KEY"), "valueFrom",
              "secretKeyRef", "key")).isEqualTo("api-key");
        })));
    options.add(new Option("scheduling mutators", d -> d
        .mutate(Mutators.nodeSelector("accelerator", "nvidia-a100"))
        .mutate(Mutators.tolerationExists("nvidia.com/gpu", "NoSchedule"))
        .mutate(Mutators.toleration("dedicated", "ml", "NoExecute"))
        .mutate(Mutators.affinity(AFFINITY))
        .mutate(Mutators.priorityClass("high-priority")), (object, docs) ->
        Manifests.podTemplates(object).forEach(template -> {
          assertThat(Fixtures.<Object>at(template, "spec", "nodeSelector", "accelerator"))
              .isEqualTo("nvidia-a100");
          assertThat(Fixtures.<List<?>>at(template, "spec", "tolerations")).hasSize(2);
          assertThat(Fixtures.<Object>at(template, "spec", "priorityClassName"))
              .isEqualTo("high-priority");
          assertThat(Fixtures.<Object>at(template, "spec", "affinity", "nodeAffinity")).isNotNull();
        })));
    options.add(new Option("identity mutators", d -> d
        .mutate(Mutators.serviceAccount("trainer"))
        .mutate(Mutators.imagePullSecrets("regcred"))
        .mutate(Mutators.labels(Map.of("pod-label", "x")))
        .mutate(Mutators.annotations(Map.of("example.com/note", "1")))
        .mutate(Mutators.securityContext().runAsUser(1000).runAsGroup(1000).runAsNonRoot()
            .fsGroup(100).readOnlyRootFilesystem().noPrivilegeEscalation()
            .dropAllCapabilities()), (object, docs) ->
        Manifests.podTemplates(object).forEach(template -> {
          assertThat(Fixtures.<Object>at(template, "spec", "serviceAccountName"))
              .isEqualTo("trainer");
          assertThat(Fixtures.<Object>at(template, "spec", "imagePullSecrets", 0, "name"))
              .isEqualTo("regcred");
          assertThat(Fixtures.<Object>at(template, "metadata", "labels", "pod-label"))
              .isEqualTo("x");
          assertThat(Fixtures.<Object>at(template, "metadata", "annotations", "example.com/note"))
              .isEqualTo("1");
          assertThat(Fixtures.<Object>at(template, "spec", "securityContext", "fsGroup"))
              .isEqualTo(100);
          assertThat(Fixtures.<Object>at(Manifests.container(template,
              Manifests.trainingContainer(object)), "securityContext", "readOnlyRootFilesystem"))
              .isEqualTo(true);
        })));
    return options;
  }

  static Stream<Arguments> combinations() {
    return shapes().stream().flatMap(shape -> options().stream()
        .map(option -> Arguments.of(shape, option)));
  }

  @ParameterizedTest(name = "{0} x {1}")
  @MethodSource("combinations")
  void rendersValidManifestsWithTheOptionApplied(Shape shape, Option option) {
    JobDeployer<?> deployer = option.apply().apply(shape.make().get());
    deployer.asDeployer().validate(Fixtures.context());

    String yaml = deployer.asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image()));

    VALIDATOR.assertAllValid(yaml);
    List<Map<String, Object>> docs = Fixtures.parse(yaml);
    Map<String, Object> object = docs.get(docs.size() - 1);
    option.check().accept(object, docs);
    assertThat(docs.subList(0, docs.size() - 1)).allSatisfy(doc ->
        assertThat(doc.get("kind")).isEqualTo("Service"));
    assertThat(docs).hasSize(object.get("kind").equals("Job")
        && Fixtures.<Integer>at(object, "spec", "parallelism") > 1 ? 2 : 1);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("shapes")
  void writesTheOperatorDefaultsExplicitly(Shape shape) {
    Map<String, Object> object = Fixtures.trainingObject(shape.make().get().asDeployer()
        .render(Fixtures.context(), Optional.of(Fixtures.image())));

    if (object.get("kind").equals("Job")) {
      assertThat(Fixtures.<Map<String, Object>>at(object, "spec")).containsKeys("completions",
          "parallelism", "backoffLimit");
      assertThat(Fixtures.<Object>at(object, "spec", "template", "spec", "restartPolicy"))
          .isEqualTo("Never");
      return;
    }
    assertThat(Fixtures.<Object>at(object, "spec", "runPolicy", "cleanPodPolicy"))
        .isEqualTo("None");
    boolean pytorch = object.get("kind").equals("PyTorchJob");
    var kind = Manifests.operatorKind(object);
    Map<String, Map<String, Object>> replicas = Fixtures.at(object, "spec",
        kind.replicaSpecsField());
    replicas.forEach((type, replica) -> {
      assertThat(replica).containsKeys("replicas", "restartPolicy");
      Map<String, Object> container = Manifests.container(
          Fixtures.at(replica, "template"), kind.containerName());
      assertThat(Fixtures.<Map<String, Object>>at(container, "ports", 0)).isEqualTo(
          Map.of("name", kind.portName(), "containerPort", kind.defaultPort()));
    });
    if (!object.get("kind").equals("TFJob")) {
      assertThat(replicas.get("Master")).containsEntry("replicas", 1);
    }
    if (pytorch) {
      assertThat(replicas.get("Master")).containsEntry("replicas", 1);
      assertThat(Fixtures.<Object>at(object, "spec", "nprocPerNode")).isInstanceOf(String.class);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("shapes")
  void kubeflowRunPolicyAndSchedulingAreWritten(Shape shape) {
    JobDeployer<?> deployer = shape.make().get();
    if (deployer instanceof PyTorchJobDeployer pytorch) {
      deployer = pytorch.cleanPodPolicy(CleanPodPolicy.RUNNING).schedulingPolicy(
          SchedulingPolicy.empty().withQueue("gang").withPriorityClass("high").withMinAvailable(2));
    } else if (deployer instanceof TfJobDeployer tf) {
      deployer = tf.cleanPodPolicy(CleanPodPolicy.RUNNING).schedulingPolicy(
          SchedulingPolicy.empty().withQueue("gang").withPriorityClass("high").withMinAvailable(2));
    } else if (deployer instanceof XGBoostJobDeployer xgb) {
      deployer = xgb.cleanPodPolicy(CleanPodPolicy.RUNNING).schedulingPolicy(
          SchedulingPolicy.empty().withQueue("gang").withPriorityClass("high").withMinAvailable(2));
    } else {
      return;  // a batch Job has no runPolicy; its lifecycle fields are covered above
    }
    String yaml = deployer.asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image()));

    VALIDATOR.assertAllValid(yaml);
    Map<String, Object> runPolicy = Fixtures.at(Fixtures.trainingObject(yaml), "spec",
        "runPolicy");
    assertThat(runPolicy).containsEntry("cleanPodPolicy", "Running")
        .containsEntry("schedulingPolicy", Map.of("minAvailable", 2, "queue", "gang",
            "priorityClass", "high"));
  }
}
