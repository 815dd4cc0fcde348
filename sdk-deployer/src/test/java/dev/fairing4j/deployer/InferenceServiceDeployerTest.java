package dev.fairing4j.deployer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.EndpointDeployer;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.testing.CrdSchemaValidator;
import dev.fairing4j.deployer.serving.DeploymentMode;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * {@code Deployers.inferenceService(..)}: KServe's InferenceService with the predictor image as a
 * custom container or a stored model, KServe's replica, canary and mode settings, each manifest
 * valid against KServe v0.19's CRD.
 */
class InferenceServiceDeployerTest {
  @Test
  void aCustomContainerIsThePredictorImageProbedOnItsReadinessPath() {
    String yaml = Deployers.inferenceService("mnist").namespace("ml").minReplicas(1)
        .maxReplicas(3).canaryTrafficPercent(10).deploymentMode(DeploymentMode.RAW_DEPLOYMENT)
        .mutate(Mutators.gpus(1)).mutate(Mutators.pvc("models", "/models"))
        .asDeployer().render(ServingDeployerTest.predictor(), Optional.of(Fixtures.image()));

    CrdSchemaValidator.load().assertAllValid(yaml);
    Map<String, Object> isvc = Fixtures.parse(yaml).get(0);
    assertThat(isvc).containsEntry("apiVersion", "serving.kserve.io/v1beta1")
        .containsEntry("kind", "InferenceService");
    assertThat(Fixtures.<Map<String, Object>>at(isvc, "metadata", "annotations"))
        .containsEntry("serving.kserve.io/deploymentMode", "RawDeployment");
    Map<String, Object> predictor = Fixtures.at(isvc, "spec", "predictor");
    assertThat(predictor).containsEntry("minReplicas", 1).containsEntry("maxReplicas", 3)
        .containsEntry("canaryTrafficPercent", 10).doesNotContainKey("restartPolicy");
    Map<String, Object> container = Manifests.container(Map.of("spec", predictor),
        "kserve-container");
    assertThat(container.get("image")).isEqualTo(Fixtures.image().reference());
    assertThat(Fixtures.<Object>at(container, "ports")).isEqualTo(List.of(
        Map.of("name", "http", "containerPort", 8080)));
    assertThat(Fixtures.<Object>at(container, "readinessProbe", "httpGet")).isEqualTo(Map.of(
        "path", "/v1/models/mnist_predictor", "port", 8080));
    assertThat(Fixtures.<Object>at(container, "resources", "limits", "nvidia.com/gpu"))
        .isEqualTo("1");
    assertThat(Fixtures.<List<Object>>at(predictor, "volumes")).isNotEmpty();

    // The schema check can fail: a misspelt KServe field is reported.
    predictor.put("canaryTraficPercent", 10);
    assertThat(CrdSchemaValidator.load().validate(isvc))
        .anyMatch(v -> v.contains("canaryTraficPercent"));
  }

  @Test
  void aStoredModelIsServedByKServesRuntimeFromItsStorageUriAndBuildsNothing() {
    var deployer = Deployers.inferenceService("mnist").storedModel("pytorch",
        "pvc://traindb-models-claim/mnist").runtime("kserve-torchserve")
        .mutate(Mutators.resources("1", "2Gi")).env("LOG_LEVEL", "debug");
    String yaml = deployer.dryRun();

    CrdSchemaValidator.load().assertAllValid(yaml);
    Map<String, Object> predictor = Fixtures.at(Fixtures.parse(yaml).get(0), "spec", "predictor");
    assertThat(predictor).doesNotContainKey("containers");
    Map<String, Object> model = Fixtures.at(predictor, "model");
    assertThat(model).containsEntry("modelFormat", Map.of("name", "pytorch"))
        .containsEntry("storageUri", "pvc://traindb-models-claim/mnist")
        .containsEntry("runtime", "kserve-torchserve")
        .doesNotContainKeys("image", "command", "name");
    assertThat(Fixtures.<List<Object>>at(model, "env"))
        .contains(Map.of("name", "LOG_LEVEL", "value", "debug"));
    assertThat(yaml).doesNotContain("kserve.invalid");
    assertThat(deployer.asDeployer().needsImage()).isFalse();
    assertThat(deployer.asDeployer()).isInstanceOf(EndpointDeployer.class);
  }

  @Test
  void badSettingsAreRefusedNamingTheFieldBeforeAnythingIsSent() {
    assertThatThrownBy(() -> Deployers.inferenceService("m").storedModel("pytorch", "/models"))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("storageUri")
        .hasMessageContaining("pvc://");
    assertThatThrownBy(() -> Deployers.inferenceService("m").canaryTrafficPercent(101))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("canaryTrafficPercent");
    assertThatThrownBy(() -> Deployers.inferenceService("m").runtime("x"))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("stored model");
    assertThatThrownBy(() -> Deployers.inferenceService("m").minReplicas(3).maxReplicas(2)
        .asDeployer().validate(ServingDeployerTest.predictor()))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("maxReplicas");
    assertThatThrownBy(() -> Deployers.inferenceService("m").backoffLimit(1).asDeployer()
        .validate(ServingDeployerTest.predictor()))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("backoffLimit");
    assertThatThrownBy(() -> Deployers.inferenceService("m").dryRun())
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("pipeline");
    assertThatThrownBy(() -> Deployers.inferenceService("m").on(Clusters.local())
        .asDeployer().validate(ServingDeployerTest.predictor()))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("an InferenceService needs KServe")
        .hasMessageContaining("Deployers.serving(..)");
  }
}
