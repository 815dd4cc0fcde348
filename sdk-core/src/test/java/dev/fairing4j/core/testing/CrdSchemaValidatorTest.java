package dev.fairing4j.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CrdSchemaValidatorTest {
  private static final CrdSchemaValidator VALIDATOR = CrdSchemaValidator.load();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final String MASTER = "spec.pytorchReplicaSpecs.Master";
  private static final String MASTER_CONTAINER = MASTER + ".template.spec.containers[0]";

  static final String PYTORCH_JOB = """
      apiVersion: kubeflow.org/v1
      kind: PyTorchJob
      metadata:
        name: mnist
        namespace: kubeflow
        labels:
          app.kubernetes.io/name: mnist
      spec:
        nprocPerNode: "auto"
        runPolicy:
          cleanPodPolicy: None
          backoffLimit: 3
        pytorchReplicaSpecs:
          Master:
            replicas: 1
            restartPolicy: OnFailure
            template:
              spec:
                containers:
                  - name: pytorch
                    image: 127.0.0.1:5000/team/mnist@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
                    command: ["python", "/app/mnist.py"]
                    ports:
                      - name: pytorchjob-port
                        containerPort: 23456
                    env:
                      - name: PYTHONUNBUFFERED
                        value: "1"
                    resources:
                      limits: {cpu: "2", memory: 4Gi, nvidia.com/gpu: 1}
                      requests: {cpu: 500m, memory: 4Gi, nvidia.com/gpu: 1}
                    volumeMounts:
                      - name: models
                        mountPath: /opt/mnist/models
                volumes:
                  - name: models
                    persistentVolumeClaim:
                      claimName: traindb-models-claim
          Worker:
            replicas: 2
            restartPolicy: OnFailure
            template:
              spec:
                containers:
                  - name: pytorch
                    image: 127.0.0.1:5000/team/mnist:latest
                    ports:
                      - name: pytorchjob-port
                        containerPort: 23456
      """;

  static final String TF_JOB = """
      apiVersion: kubeflow.org/v1
      kind: TFJob
      metadata: {name: dist-mnist}
      spec:
        tfReplicaSpecs:
          Chief:
            replicas: 1
            restartPolicy: Never
            template:
              spec:
                containers:
                  - {name: tensorflow, image: tensorflow/tensorflow:2.15.0,
                     ports: [{name: tfjob-port, containerPort: 2222}]}
          Worker:
            replicas: 2
            restartPolicy: Never
            template:
              spec:
                containers:
                  - {name: tensorflow, image: tensorflow/tensorflow:2.15.0}
      """;

  static final String BATCH_JOB = """
      apiVersion: batch/v1
      kind: Job
      metadata: {name: mnist, namespace: default}
      spec:
        completions: 2
        parallelism: 2
        completionMode: Indexed
        backoffLimit: 0
        ttlSecondsAfterFinished: 600
        suspend: false
        template:
          metadata:
            labels: {app: mnist}
          spec:
            subdomain: mnist
            restartPolicy: Never
            containers:
              - name: main
                image: python:3.11
                resources: {limits: {memory: 1Gi}}
      """;

  @Test
  void aMinimalValidPyTorchJobPassesEveryCheck() {
    assertThat(VALIDATOR.validate(pyTorchJob())).isEmpty();
    assertThat(VALIDATOR.webhookViolations(pyTorchJob())).isEmpty();
    assertThatCode(() -> VALIDATOR.assertValid(PYTORCH_JOB)).doesNotThrowAnyException();
  }

  @Test
  void acceptsAManifestGivenAsAMap() {
    Map<String, Object> job = Map.of("apiVersion", "kubeflow.org/v1", "kind", "JAXJob",
        "metadata", Map.of("name", "jax"),
        "spec", Map.of("jaxReplicaSpecs", Map.of("Worker", Map.of("replicas", 2,
            "template", Map.of("spec", Map.of("containers",
                List.of(Map.of("name", "jax", "image", "python:3.11"))))))));

    assertThat(VALIDATOR.violations(job)).isEmpty();
    assertThat(VALIDATOR.validate(Map.of("apiVersion", "kubeflow.org/v1", "kind", "JAXJob",
        "metadata", Map.of("name", "jax"), "spec", Map.of("jaxReplicaSpecs", "oops"))))
        .containsExactly("spec.jaxReplicaSpecs: expected object, got string \"oops\"");
  }

  @Test
  void reportsAnUnknownFieldWithItsPath() {
    ObjectNode job = pyTorchJob();
    set(job, "/spec/pytorchReplicaSpecs/Master/template/spec/containers/0/imagee", "x");

    assertThat(VALIDATOR.validate(job))
        .containsExactly(MASTER_CONTAINER + ".imagee: unknown field \"imagee\"");
  }

  @Test
  void reportsAnUnknownMetadataField() {
    ObjectNode job = pyTorchJob();
    set(job, "/metadata/label", NODES.objectNode());

    assertThat(VALIDATOR.validate(job)).containsExactly("metadata.label: unknown field \"label\"");
  }

  @Test
  void reportsAWrongType() {
    ObjectNode job = pyTorchJob();
    set(job, "/spec/pytorchReplicaSpecs/Worker/replicas", "1");

    assertThat(VALIDATOR.validate(job)).containsExactly(
        "spec.pytorchReplicaSpecs.Worker.replicas: expected integer, got string \"1\"");
  }

  @Test
  void reportsAQuantityThatDoesNotMatchThePattern() {
    ObjectNode job = pyTorchJob();
    set(job, "/spec/pytorchReplicaSpecs/Master/template/spec/containers/0/resources/limits/memory",
        "4Gx");

    assertThat(VALIDATOR.validate(job)).containsExactly(
        MASTER_CONTAINER + ".resources.limits.memory: '4Gx' does not match the quantity pattern");
  }

  @Test
  void reportsAMissingRequiredField() {
    ObjectNode job = pyTorchJob();
    ((ObjectNode) job.at("/spec/pytorchReplicaSpecs/Master/template/spec/containers/0"))
        .remove("name");

    assertThat(VALIDATOR.validate(job))
        .contains(MASTER_CONTAINER + ".name: required field is missing");
  }

  @Test
  void acceptsIntOrStringBothWaysAndNothingElse() {
    ObjectNode job = pyTorchJob();
    String limits = "/spec/pytorchReplicaSpecs/Master/template/spec/containers/0/resources/limits";
    set(job, limits + "/cpu", NODES.numberNode(2));
    set(job, limits + "/memory", "4Gi");
    assertThat(VALIDATOR.validate(job)).isEmpty();

    set(job, limits + "/cpu", NODES.booleanNode(true));
    set(job, limits + "/memory", NODES.numberNode(1.5));
    assertThat(VALIDATOR.validate(job)).containsExactlyInAnyOrder(
        MASTER_CONTAINER + ".resources.limits.cpu: expected an integer or a string, got boolean true",
        MASTER_CONTAINER + ".resources.limits.memory: expected an integer or a string, got number 1.5");
  }

  @Test
  void reportsAnInt32Overflow() {
    ObjectNode job = pyTorchJob();
    set(job, "/spec/pytorchReplicaSpecs/Worker/replicas", NODES.numberNode(3_000_000_000L));

    assertThat(VALIDATOR.validate(job)).containsExactly(
        "spec.pytorchReplicaSpecs.Worker.replicas: 3000000000 does not fit in int32");
  }

  @Test
  void reportsNullValues() {
    ObjectNode job = pyTorchJob();
    set(job, "/spec/runPolicy/backoffLimit", NODES.nullNode());

    assertThat(VALIDATOR.validate(job)).containsExactly(
        "spec.runPolicy.backoffLimit: null is not allowed here (omit the field instead)");
  }

  @Test
  void reportsDuplicateKeysInAListMap() {
    ObjectNode job = pyTorchJob();
    ArrayNode containers =
        (ArrayNode) job.at("/spec/pytorchReplicaSpecs/Worker/template/spec/containers");
    containers.add(containers.get(0).deepCopy());

    assertThat(VALIDATOR.validate(job)).singleElement().asString()
        .startsWith("spec.pytorchReplicaSpecs.Worker.template.spec.containers[1]: duplicate entry");
  }

  @Test
  void webhookRequiresExactlyOneMaster() {
    ObjectNode job = pyTorchJob();
    set(job, "/spec/pytorchReplicaSpecs/Master/replicas", NODES.numberNode(2));

    assertThat(VALIDATOR.validate(job)).isEmpty();
    assertThat(VALIDATOR.webhookViolations(job)).containsExactly(
        MASTER + ".replicas: must be present and 1, got integer 2");

    ((ObjectNode) job.at("/spec/pytorchReplicaSpecs/Master")).remove("replicas");
    assertThat(VALIDATOR.webhookViolations(job)).containsExactly(
        MASTER + ".replicas: must be present and 1, got nothing");
  }

  @Test
  void webhookRequiresTheContainerNamedAfterTheKind() {
    ObjectNode job = pyTorchJob();
    set(job, "/spec/pytorchReplicaSpecs/Worker/template/spec/containers/0/name", "main");

    assertThat(VALIDATOR.validate(job)).isEmpty();
    assertThat(VALIDATOR.webhookViolations(job)).containsExactly(
        "spec.pytorchReplicaSpecs.Worker.template.spec.containers: no container named 'pytorch' "
            + "(the operator finds the training container by this exact name)");
  }

  @Test
  void webhookRequiresAnImageInEveryContainer() {
    ObjectNode job = pyTorchJob();
    ((ObjectNode) job.at("/spec/pytorchReplicaSpecs/Master/template/spec/containers/0"))
        .remove("image");

    assertThat(VALIDATOR.webhookViolations(job)).containsExactly(
        MASTER_CONTAINER + ".image: every container needs an image");
  }

  @Test
  void webhookAllowsOnlyMasterAndWorkerInAPyTorchJob() {
    ObjectNode job = pyTorchJob();
    set(job, "/spec/pytorchReplicaSpecs/Chief", job.at("/spec/pytorchReplicaSpecs/Worker").deepCopy());

    assertThat(VALIDATOR.webhookViolations(job)).containsExactly(
        "spec.pytorchReplicaSpecs.Chief: PyTorchJob replica types are Master and Worker only");
  }

  @Test
  void webhookRejectsCapitalsInTheJobName() {
    ObjectNode job = pyTorchJob();
    set(job, "/metadata/name", "MNIST");

    assertThat(VALIDATOR.webhookViolations(job)).singleElement().asString()
        .startsWith("metadata.name: 'MNIST' is not a DNS-1035 label");
    assertThat(VALIDATOR.validate(job)).singleElement().asString()
        .startsWith("metadata.name: 'MNIST' is not a DNS-1123 subdomain");
  }

  @Test
  void webhookRejectsANameLongerThan63OrStartingWithADigit() {
    ObjectNode job = pyTorchJob();
    set(job, "/metadata/name", "a".repeat(64));
    assertThat(VALIDATOR.webhookViolations(job)).hasSize(1);
    set(job, "/metadata/name", "1mnist");
    assertThat(VALIDATOR.webhookViolations(job)).hasSize(1);
    set(job, "/metadata/name", "a".repeat(63));
    assertThat(VALIDATOR.webhookViolations(job)).isEmpty();
  }

  @Test
  void aValidTfJobPassesAndChiefWithMasterDoesNot() {
    assertThatCode(() -> VALIDATOR.assertValid(TF_JOB)).doesNotThrowAnyException();

    JsonNode job = CrdSchemaValidator.parseDocuments(TF_JOB).get(0);
    set(job, "/spec/tfReplicaSpecs/Master", job.at("/spec/tfReplicaSpecs/Chief").deepCopy());

    assertThat(VALIDATOR.validate(job)).isEmpty();
    assertThat(VALIDATOR.webhookViolations(job)).containsExactly(
        "spec.tfReplicaSpecs: Chief and Master cannot both be set (Master is an old alias of Chief)");
  }

  @Test
  void assertValidListsEveryViolation() {
    ObjectNode job = pyTorchJob();
    set(job, "/metadata/name", "Bad_Name");
    set(job, "/spec/pytorchReplicaSpecs/Worker/replicas", "1");

    assertThatThrownBy(() -> VALIDATOR.assertValid(job))
        .isInstanceOf(AssertionError.class)
        .hasMessageContaining("PyTorchJob Bad_Name is invalid")
        .hasMessageContaining("metadata.name: 'Bad_Name' is not a DNS-1123 subdomain")
        .hasMessageContaining("metadata.name: 'Bad_Name' is not a DNS-1035 label")
        .hasMessageContaining("spec.pytorchReplicaSpecs.Worker.replicas: expected integer");
  }

  @Test
  void assertValidAlsoAppliesPodRulesToReplicaTemplates() {
    ObjectNode job = pyTorchJob();
    set(job, "/spec/pytorchReplicaSpecs/Worker/template/spec/containers/0/ports/0/name",
        "pytorchjob-port-1");  // 17 characters: pods with it are rejected

    assertThat(VALIDATOR.validate(job)).isEmpty();
    assertThat(VALIDATOR.violations(job)).singleElement().asString().startsWith(
        "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].ports[0].name: "
            + "'pytorchjob-port-1' is not a valid port name");
  }

  @Test
  void reportsAnUnknownKind() {
    assertThat(VALIDATOR.validate(Map.of("apiVersion", "kubeflow.org/v1", "kind", "TorchJob",
        "metadata", Map.of("name", "x")))).singleElement().asString()
        .startsWith("kind: no CRD for kubeflow.org/v1 kind 'TorchJob'");
    assertThat(VALIDATOR.validate(Map.of("apiVersion", "apps/v1", "kind", "StatefulSet",
        "metadata", Map.of("name", "x")))).singleElement().asString()
        .startsWith("kind: CrdSchemaValidator has no checks for apps/v1 StatefulSet");
  }

  @Test
  void aValidBatchJobPasses() {
    assertThat(VALIDATOR.validate(CrdSchemaValidator.parseDocuments(BATCH_JOB).get(0))).isEmpty();
  }

  @Test
  void batchJobPodTemplatesGetTheStrictPodSchema() {
    JsonNode job = CrdSchemaValidator.parseDocuments(BATCH_JOB).get(0);
    set(job, "/spec/template/spec/containers/0/imagee", "x");
    set(job, "/spec/template/spec/restartPolicy", "Always");
    set(job, "/spec/completionMode", "Sequential");
    set(job, "/spec/parallelism", NODES.numberNode(-1));
    set(job, "/spec/backoffLimitt", NODES.numberNode(1));

    assertThat(VALIDATOR.validate(job)).containsExactlyInAnyOrder(
        "spec.backoffLimitt: unknown field \"backoffLimitt\"",
        "spec.parallelism: must be an integer >= 0, got integer -1",
        "spec.completionMode: must be NonIndexed or Indexed, got string \"Sequential\"",
        "spec.template.spec.containers[0].imagee: unknown field \"imagee\"",
        "spec.template.spec.restartPolicy: a Job's pods need OnFailure or Never, got string "
            + "\"Always\"");
  }

  @Test
  void validatesAPodTemplateOnItsOwn() {
    JsonNode template = CrdSchemaValidator.parseDocuments(BATCH_JOB).get(0).at("/spec/template");
    assertThat(VALIDATOR.validatePodTemplate(template)).isEmpty();

    set(template, "/spec/containers/0/volumeMounts",
        NODES.arrayNode().add(NODES.objectNode().put("name", "data").put("mountPath", "/data")));
    set(template, "/spec/containers/0/resources/requests", NODES.objectNode().put("memory", "2Gi"));
    assertThat(VALIDATOR.validatePodTemplate(template)).containsExactlyInAnyOrder(
        "spec.containers[0].volumeMounts[0].name: no volume named 'data' in the pod spec",
        "spec.containers[0].resources.requests.memory: request 2Gi exceeds the limit 1Gi");
  }

  @Test
  void assertAllValidChecksEveryDocument() {
    String service = """
        apiVersion: v1
        kind: Service
        metadata: {name: mnist}
        spec:
          clusterIP: None
          selector: {job-name: mnist}
          ports: [{name: http, port: 80, targetPort: 8080}]
        """;
    String claim = """
        apiVersion: v1
        kind: PersistentVolumeClaim
        metadata: {name: traindb-models-claim}
        spec:
          accessModes: [ReadWriteMany]
          resources: {requests: {storage: 10Gi}}
        """;
    String volume = """
        apiVersion: v1
        kind: PersistentVolume
        metadata: {name: traindb-models}
        spec:
          capacity: {storage: 10Gi}
          accessModes: [ReadWriteMany]
          hostPath: {path: /srv/models}
        """;
    String secret = """
        apiVersion: v1
        kind: Secret
        metadata: {name: registry-creds}
        type: kubernetes.io/dockerconfigjson
        data: {.dockerconfigjson: e30=}
        """;
    String all = String.join("---\n", PYTORCH_JOB, TF_JOB, BATCH_JOB, service, claim, volume,
        secret);
    assertThatCode(() -> VALIDATOR.assertAllValid(all)).doesNotThrowAnyException();

    String broken = String.join("---\n", PYTORCH_JOB,
        service.replace("name: mnist}", "name: 9mnist}"),
        claim.replace("storage: 10Gi", "storage: ten"),
        secret.replace("e30=", "not base64!"));
    assertThat(VALIDATOR.validateAll(broken)).containsExactly(
        "[2] Service 9mnist: metadata.name: '9mnist' is not a DNS-1035 label of at most 63 "
            + "characters",
        "[3] PersistentVolumeClaim traindb-models-claim: spec.resources.requests.storage: string "
            + "\"ten\" is not a quantity",
        "[4] Secret registry-creds: data[.dockerconfigjson]: not base64 (put plain text under "
            + "stringData)");
    assertThatThrownBy(() -> VALIDATOR.assertAllValid(broken))
        .isInstanceOf(AssertionError.class)
        .hasMessageStartingWith("3 violation(s)");
  }

  @Test
  void loadsAllSixKubeflowSchemasTheTrainJobAndTheInferenceService() {
    assertThat(VALIDATOR.crds()).extracting(CrdSchemaValidator.Crd::plural)
        .containsExactlyInAnyOrder("pytorchjobs", "tfjobs", "mpijobs", "xgboostjobs", "jaxjobs",
            "paddlejobs", "trainjobs", "inferenceservices");
    assertThat(VALIDATOR.crd("InferenceService").apiVersion())
        .isEqualTo("serving.kserve.io/v1beta1");
    assertThat(VALIDATOR.crd("TrainJob").apiVersion())
        .isEqualTo("trainer.kubeflow.org/v1alpha1");
    assertThat(CrdSchemaValidator.loadTrainerV20().crd("TrainJob").openApiV3Schema()
        .at("/properties/spec/properties").has("podSpecOverrides")).isTrue();
    assertThat(VALIDATOR.crd("TFJob").apiVersion()).isEqualTo("kubeflow.org/v1");
    assertThat(VALIDATOR.crd("TFJob").scope()).isEqualTo("Namespaced");
  }

  static final String TRAIN_JOB = """
      apiVersion: trainer.kubeflow.org/v1alpha1
      kind: TrainJob
      metadata:
        name: mnist
        namespace: kubeflow
      spec:
        runtimeRef:
          name: torch-distributed
        trainer:
          image: 127.0.0.1:5000/team/mnist:v1
          command: [torchrun, /app/mnist.py]
          numNodes: 2
          numProcPerNode: 1
          env:
            - name: EPOCHS
              value: "1"
          resourcesPerNode:
            limits: {cpu: "2", memory: 4Gi}
        initializer:
          dataset:
            storageUri: hf://fashion_mnist
        runtimePatches:
          - manager: fairing4j.dev/deployer
            trainingRuntimeSpec:
              template:
                spec:
                  replicatedJobs:
                    - name: node
                      template:
                        spec:
                          template:
                            metadata:
                              labels: {fairing4j.dev/job-name: mnist}
                            spec:
                              containers:
                                - name: node
                                  volumeMounts:
                                    - {name: models, mountPath: /opt/mnist/models}
                              volumes:
                                - name: models
                                  persistentVolumeClaim: {claimName: models}
      """;

  @Test
  void aTrainJobIsCheckedAgainstTheV23SchemaItsCelRulesAndTheWebhook() {
    assertThatCode(() -> VALIDATOR.assertValid(TRAIN_JOB)).doesNotThrowAnyException();

    ObjectNode job = (ObjectNode) CrdSchemaValidator.parseDocuments(TRAIN_JOB).get(0);
    set(job, "/metadata/name", "Mnist-With-A-Name-Far-Too-Long-For-The-Pods-Of-A-JobSet-x");
    set(job, "/spec/managedBy", "me");
    set(job, "/spec/initializer/dataset/storageUri", "fashion_mnist");
    set(job, "/spec/trainer/numNodes", NODES.textNode("2"));
    set(job, "/spec/trainer/env/0/name", "PET_NNODES");
    set(job, "/spec/activeDeadlineSeconds", NODES.numberNode(0));
    set(job, "/spec/runtimePatches/0/manager", "fairing4j");
    set(job, "/spec/podSpecOverrides", NODES.arrayNode());

    assertThat(VALIDATOR.violations(job)).containsExactlyInAnyOrder(
        "metadata.name: 'Mnist-With-A-Name-Far-Too-Long-For-The-Pods-Of-A-JobSet-x' is not a"
            + " DNS-1123 subdomain (lower-case letters, digits, '-' and '.', starting and ending"
            + " with a letter or digit)",
        "<root>: Invalid value: an object: metadata.name must match RFC 1035 DNS label format",
        "spec.managedBy: Invalid value: string \"me\": ManagedBy must be"
            + " trainer.kubeflow.org/trainjob-controller or kueue.x-k8s.io/multikueue if set",
        "spec.initializer.dataset.storageUri: Invalid value: string \"fashion_mnist\":"
            + " storageUri may be empty, or it must be a valid URI (scheme://...)",
        "spec.trainer.numNodes: expected integer, got string \"2\"",
        "spec.activeDeadlineSeconds: Invalid value: 0: should be greater than or equal to 1",
        "spec.podSpecOverrides: unknown field \"podSpecOverrides\"",
        "spec.trainer.env: must not have reserved envs, invalid envs configured: [PET_NNODES]",
        "spec.runtimePatches[0].manager: 'fairing4j' is not a domain-prefixed path (acme.io/x)",
        "metadata.name: JobSet name is too long, pod names such as"
            + " 'Mnist-With-A-Name-Far-Too-Long-For-The-Pods-Of-A-JobSet-x-node-0-1-abcde' would"
            + " exceed 63 characters",
        "metadata.name: JobSet name is too long, pod names such as"
            + " 'Mnist-With-A-Name-Far-Too-Long-For-The-Pods-Of-A-JobSet-x-dataset-initializer-0-0"
            + "-abcde' would exceed 63 characters");
  }

  @Test
  void theV20TrainJobHasPodSpecOverridesAndIntOrStringProcesses() {
    ObjectNode job = (ObjectNode) CrdSchemaValidator.parseDocuments(TRAIN_JOB).get(0);
    job.with("spec").remove("runtimePatches");
    set(job, "/spec/trainer/numProcPerNode", "auto");
    set(job, "/spec/labels", NODES.objectNode().put("team", "a"));

    assertThat(CrdSchemaValidator.loadTrainerV20().violations(job)).isEmpty();
    assertThat(VALIDATOR.violations(job)).containsExactlyInAnyOrder(
        "spec.trainer.numProcPerNode: expected integer, got string \"auto\"",
        "spec.labels: unknown field \"labels\"");
  }

  private static ObjectNode pyTorchJob() {
    return (ObjectNode) CrdSchemaValidator.parseDocuments(PYTORCH_JOB).get(0);
  }

  /** Sets the value at a JSON pointer whose parent exists, creating objects on the way. */
  private static void set(JsonNode root, String pointer, Object value) {
    int slash = pointer.lastIndexOf('/');
    String parentPointer = pointer.substring(0, slash);
    String last = pointer.substring(slash + 1);
    JsonNode parent = root.at(parentPointer);
    if (parent.isMissingNode()) {
      set(root, parentPointer, NODES.objectNode());
      parent = root.at(parentPointer);
    }
    JsonNode node = value instanceof JsonNode json ? json : NODES.textNode((String) value);
    if (parent instanceof ArrayNode array) {
      array.set(Integer.parseInt(last), node);
    } else {
      ((ObjectNode) parent).set(last, node);
    }
  }

  @Test
  void aDeploymentIsCheckedAsTheApiServerChecksOne() {
    String good = """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: mnist-serve}
        spec:
          replicas: 2
          selector: {matchLabels: {app: mnist}}
          template:
            metadata: {labels: {app: mnist}}
            spec:
              restartPolicy: Always
              containers: [{name: kserve-container, image: registry.example.com/m@sha256:%s}]
        """.formatted("ab".repeat(32));
    assertThat(VALIDATOR.validateAll(good)).isEmpty();

    String bad = good.replace("replicas: 2", "replica: 2")
        .replace("labels: {app: mnist}}", "labels: {app: other}}")
        .replace("restartPolicy: Always", "restartPolicy: Never");
    assertThat(VALIDATOR.validateAll(bad)).anyMatch(v -> v.contains("spec.replica: unknown"))
        .anyMatch(v -> v.contains("`selector` does not match template `labels`"))
        .anyMatch(v -> v.contains("a Deployment's pods need Always"));
  }
}
