package dev.fairing4j.deployer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.EndpointDeployer;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.deployer.serving.ServingDeployer;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code Deployers.serving(..)}: a Deployment running the predictor's model server with its
 * readiness path as the probe, a Service in front, the model name the server answers to, and the
 * job settings an endpoint cannot have refused.
 */
class ServingDeployerTest {
  static BuildContext predictor(String... extra) {
    return Fixtures.predictorContext(extra);
  }

  @Test
  void anEndpointIsAServiceAndADeploymentProbedOnTheModelsReadinessPath() {
    String yaml = Deployers.serving("mnist").replicas(2).namespace("ml")
        .mutate(Mutators.gpus(1)).mutate(Mutators.pvc("models", "/models"))
        .asDeployer().render(predictor(), Optional.of(Fixtures.image()));

    List<Map<String, Object>> docs = Fixtures.parse(yaml);
    assertThat(docs).extracting(doc -> doc.get("kind")).containsExactly("Service", "Deployment");
    Map<String, Object> selector = Map.of("fairing4j.dev/job-name", "mnist",
        "fairing4j.dev/role", "predictor");
    assertThat(Fixtures.<Map<String, Object>>at(docs.get(0), "spec")).isEqualTo(Map.of(
        "type", "ClusterIP", "selector", selector,
        "ports", List.of(Map.of("name", "http", "port", 80, "targetPort", "http"))));
    Map<String, Object> deployment = docs.get(1);
    assertThat(Fixtures.<Object>at(deployment, "apiVersion")).isEqualTo("apps/v1");
    assertThat(Fixtures.<Map<String, Object>>at(deployment, "spec"))
        .containsEntry("replicas", 2).containsEntry("selector", Map.of("matchLabels", selector));
    Map<String, Object> pod = Fixtures.at(deployment, "spec", "template");
    assertThat(Fixtures.<Map<String, Object>>at(pod, "metadata", "labels"))
        .containsAllEntriesOf(selector);
    assertThat(Fixtures.<Object>at(pod, "spec", "restartPolicy")).isEqualTo("Always");
    Map<String, Object> container = Manifests.container(pod, "kserve-container");
    assertThat(Fixtures.<Object>at(container, "ports")).isEqualTo(List.of(
        Map.of("name", "http", "containerPort", 8080)));
    assertThat(Fixtures.<Object>at(container, "readinessProbe", "httpGet")).isEqualTo(Map.of(
        "path", "/v1/models/mnist_predictor", "port", "http"));
    assertThat(Fixtures.<List<Object>>at(container, "env"))
        .contains(Map.of("name", "PORT", "value", "8080"));
    assertThat(Fixtures.<Object>at(container, "resources", "limits", "nvidia.com/gpu"))
        .isEqualTo("1");
    assertThat(Fixtures.<List<Object>>at(container, "volumeMounts")).isNotEmpty();
  }

  @Test
  void theModelNameIsTheOneTheServerAnswersTo() {
    assertThat(probePath(Deployers.serving("m"), predictor("--model_name", "digits")))
        .isEqualTo("/v1/models/digits");
    assertThat(probePath(Deployers.serving("m").modelName("digits"), predictor()))
        .as("the server reads MODEL_NAME when its command names none")
        .isEqualTo("/v1/models/digits");
    assertThat(Deployers.serving("m").modelName("digits").asDeployer().render(predictor(),
        Optional.of(Fixtures.image()))).contains("name: MODEL_NAME", "value: digits");
    assertThat(probePath(Deployers.serving("m").modelName("own"), Fixtures.context()))
        .as("an image with a server of its own").isEqualTo("/v1/models/own");
  }

  @Test
  void aModelNameThatCannotBeKnownOrDiffersIsRefusedNamingTheField() {
    assertThatThrownBy(() -> Deployers.serving("m").asDeployer().validate(Fixtures.context()))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("modelName")
        .hasMessageContaining("Preprocessors.predictor");
    assertThatThrownBy(() -> Deployers.serving("m").modelName("other").asDeployer()
        .validate(predictor("--model_name", "digits")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("'other' differs from 'digits'");
    assertThatThrownBy(() -> Deployers.serving("m").args("--epochs=1").asDeployer()
        .validate(predictor())).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("validate args failed: [--epochs=1] would go to fairing4j's"
            + " model server");
    assertThat(Deployers.serving("m").modelName("own").args("--workers=2").asDeployer()
        .render(Fixtures.context(), Optional.of(Fixtures.image())))
        .as("an image's own server takes its own arguments").contains("--workers=2");
    assertThatThrownBy(() -> Deployers.serving("m").modelName("Not A Path"))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("modelName");
  }

  static Stream<Arguments> jobSettings() {
    return Stream.of(
        Arguments.of("backoffLimit", (UnaryOperator<ServingDeployer>) d -> d.backoffLimit(1)),
        Arguments.of("activeDeadlineSeconds",
            (UnaryOperator<ServingDeployer>) d -> d.activeDeadlineSeconds(60)),
        Arguments.of("ttlSecondsAfterFinished",
            (UnaryOperator<ServingDeployer>) d -> d.ttlSecondsAfterFinished(60)),
        Arguments.of("suspend", (UnaryOperator<ServingDeployer>) d -> d.suspend(true)),
        Arguments.of("kueueQueue", (UnaryOperator<ServingDeployer>) d -> d.kueueQueue("q")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("jobSettings")
  void aJobsOwnSettingIsRefusedBeforeAnythingIsSent(String field,
      UnaryOperator<ServingDeployer> setting) {
    assertThatThrownBy(() -> setting.apply(Deployers.serving("m")).asDeployer()
        .validate(predictor()))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("validate " + field + " failed")
        .hasMessageContaining("an endpoint serves until it is deleted");
  }

  @Test
  void itsStepsServeAndAreValuesLikeTheDeployer() {
    assertThat(Deployers.serving("m").asDeployer()).isInstanceOf(EndpointDeployer.class)
        .isEqualTo(Deployers.serving("m").asDeployer())
        .isNotEqualTo(Deployers.serving("m").replicas(2).asDeployer());
    assertThat(Deployers.serving("m").replicas(2).modelName("digits"))
        .hasToString("Serving[m, replicas=2, model=digits]");
    assertThatThrownBy(() -> Deployers.serving("m").replicas(0))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("replicas");
  }

  private static String probePath(ServingDeployer deployer, BuildContext context) {
    Map<String, Object> deployment = Fixtures.parse(deployer.asDeployer().render(context,
        Optional.of(Fixtures.image()))).get(1);
    return Fixtures.at(Manifests.container(Fixtures.at(deployment, "spec", "template"),
        "kserve-container"), "readinessProbe", "httpGet", "path");
  }
}
