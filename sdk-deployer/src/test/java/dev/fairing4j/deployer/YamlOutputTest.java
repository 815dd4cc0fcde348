package dev.fairing4j.deployer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The YAML a dry run prints: strings stay strings, no nulls, no empty noise, one doc per object. */
class YamlOutputTest {
  private static final List<String> TRICKY = List.of("1", "true", "auto", "0.5", "~", "", "null",
      "yes", "No", "on", "1e3", "0x1F", "-1", ".5", "+1", "1:30", "0o17", "1_000", ".inf",
      "2001-12-14", "a: b", "#comment", "multi\nline", "@at", "*star", "&amp", "!tag", "[x]",
      "{y}", "%pct", "'q'", "\"dq\"", "= eq", "- dash");

  @Test
  void stringsThatLookLikeOtherTypesStayStrings() {
    var deployer = Deployers.pyTorchJob("mnist").nprocPerNode("2");
    for (int i = 0; i < TRICKY.size(); i++) {
      deployer = deployer.env("V" + i, TRICKY.get(i));
    }

    String yaml = deployer.args(TRICKY).asDeployer().render(Fixtures.context(),
        Optional.of(Fixtures.image()));

    Map<String, Object> object = Fixtures.trainingObject(yaml);
    Map<String, Object> container = Manifests.trainingContainers(object).get(0);
    for (int i = 0; i < TRICKY.size(); i++) {
      assertThat(Manifests.env(container, "V" + i)).containsEntry("value", TRICKY.get(i));
    }
    assertThat(Fixtures.<List<Object>>at(container, "args")).isEqualTo(List.copyOf(TRICKY));
    assertThat(Fixtures.<Object>at(object, "spec", "nprocPerNode")).isEqualTo("2");
    assertThat(yaml).contains("nprocPerNode: \"2\"");
  }

  @Test
  void numbersStayNumbersAndQuantitiesStayStrings() {
    String yaml = Deployers.tfJob("tf").workers(3).mutate(Mutators.resources("1", "512Mi")).mutate(Mutators.gpus(1))
        .asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image()));

    Map<String, Object> object = Fixtures.trainingObject(yaml);
    assertThat(Fixtures.<Object>at(object, "spec", "tfReplicaSpecs", "Worker", "replicas"))
        .isEqualTo(3);
    assertThat(Fixtures.<Object>at(Manifests.trainingContainers(object).get(0), "resources",
        "limits")).isEqualTo(Map.of("cpu", "1", "memory", "512Mi", "nvidia.com/gpu", "1"));
  }

  @Test
  void thereAreNoNullsAndNoEmptyMapsExceptAnEmptyDir() {
    String yaml = Deployers.batchJob("ddp").replicas(2).args().annotations(Map.of())
        .mutate(Mutators.emptyDir("scratch", "/scratch"))
        .mutate(template -> template.putPodField("nodeSelector", Map.of()))
        .asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image()));

    Fixtures.parse(yaml).forEach(doc -> assertNoEmpty("", doc));
    assertThat(yaml).doesNotContain("null").contains("emptyDir: {}");
  }

  @Test
  void everyObjectIsItsOwnDocument() {
    String yaml = Deployers.batchJob("ddp").replicas(2)
        .asDeployer().render(Fixtures.context(), Optional.of(Fixtures.image()));

    assertThat(yaml).startsWith("---\napiVersion: v1\nkind: Service\n");
    assertThat(yaml.split("(?m)^---$")).hasSize(3);
    assertThat(yaml).contains("\n---\napiVersion: batch/v1\nkind: Job\n");
  }

  private static void assertNoEmpty(String path, Object value) {
    assertThat(value).as(path).isNotNull();
    if (value instanceof Map<?, ?> map) {
      if (!path.endsWith(".emptyDir")) {
        assertThat(map).as(path).isNotEmpty();
      }
      map.forEach((k, v) -> assertNoEmpty(path + "." + k, v));
    } else if (value instanceof List<?> list) {
      assertThat(list).as(path).isNotEmpty();
      list.forEach(item -> assertNoEmpty(path + "[]", item));
    }
  }
}
