package dev.fairing4j.deployer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.testing.CrdSchemaValidator;
import dev.fairing4j.deployer.job.RestartPolicy;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A plain batch/v1 Job: one pod, or an Indexed Job that runs DDP without the operator. */
class BatchJobTest {
  @Test
  void aDistributedJobIsIndexedWithAHeadlessServiceAndTheRankEnvironment() {
    String yaml = Deployers.batchJob("ddp").replicas(4).namespace("ml").env("EPOCHS", "1")
        .asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image()));

    CrdSchemaValidator.load().assertAllValid(yaml);
    List<Map<String, Object>> docs = Fixtures.parse(yaml);
    assertThat(docs).extracting(doc -> doc.get("kind")).containsExactly("Service", "Job");
    Map<String, Object> service = docs.get(0);
    assertThat(Fixtures.<Map<String, Object>>at(service, "spec")).isEqualTo(Map.of(
        "clusterIP", "None",
        "publishNotReadyAddresses", true,
        "selector", Map.of("fairing4j.dev/job-name", "ddp"),
        "ports", List.of(Map.of("name", "master-port", "port", 23456, "targetPort", 23456))));
    Map<String, Object> job = docs.get(1);
    assertThat(Fixtures.<Map<String, Object>>at(job, "spec")).containsEntry("completionMode",
        "Indexed").containsEntry("completions", 4).containsEntry("parallelism", 4)
        .containsEntry("backoffLimit", 0);
    Map<String, Object> pod = Fixtures.at(job, "spec", "template");
    assertThat(Fixtures.<Object>at(pod, "metadata", "labels", "fairing4j.dev/job-name"))
        .isEqualTo("ddp");
    assertThat(Fixtures.<Object>at(pod, "spec", "subdomain")).isEqualTo("ddp");
    assertThat(Fixtures.<Object>at(pod, "spec", "restartPolicy")).isEqualTo("Never");
    Map<String, Object> container = Manifests.container(pod, "training");
    assertThat(Fixtures.<List<Object>>at(container, "env")).containsExactly(
        Map.of("name", "MASTER_ADDR", "value", "ddp-0.ddp"),
        Map.of("name", "MASTER_PORT", "value", "23456"),
        Map.of("name", "WORLD_SIZE", "value", "4"),
        Map.of("name", "RANK", "valueFrom", Map.of("fieldRef", Map.of("fieldPath",
            "metadata.annotations['batch.kubernetes.io/job-completion-index']"))),
        Map.of("name", "EPOCHS", "value", "1"));
    assertThat(Fixtures.<Object>at(container, "ports", 0, "containerPort")).isEqualTo(23456);
  }

  @Test
  void aSinglePodJobHasNoServiceAndNoRankEnvironment() {
    String yaml = Deployers.batchJob("once").completions(3).parallelism(2)
        .restartPolicy(RestartPolicy.ON_FAILURE).backoffLimit(2)
        .asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image()));

    CrdSchemaValidator.load().assertAllValid(yaml);
    List<Map<String, Object>> docs = Fixtures.parse(yaml);
    assertThat(docs).singleElement().satisfies(job -> {
      assertThat(Fixtures.<Map<String, Object>>at(job, "spec")).doesNotContainKey("completionMode")
          .containsEntry("completions", 3).containsEntry("parallelism", 2)
          .containsEntry("backoffLimit", 2);
      Map<String, Object> pod = Fixtures.at(job, "spec", "template");
      assertThat(Fixtures.<Map<String, Object>>at(pod, "spec")).doesNotContainKey("subdomain")
          .containsEntry("restartPolicy", "OnFailure");
      assertThat(Manifests.container(pod, "training")).doesNotContainKeys("env", "ports");
    });
  }

  @Test
  void aMutatorCannotOverrideTheRestartPolicyOrSubdomainTheJobNeeds() {
    String yaml = Deployers.batchJob("ddp").replicas(2)
        .mutate(template -> template.putPodField("restartPolicy", "Always")
            .putPodField("subdomain", "elsewhere"))
        .asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image()));

    Map<String, Object> pod = Fixtures.at(Fixtures.trainingObject(yaml), "spec", "template");
    assertThat(Fixtures.<Object>at(pod, "spec", "restartPolicy")).isEqualTo("Never");
    assertThat(Fixtures.<Object>at(pod, "spec", "subdomain")).isEqualTo("ddp");
  }
}
