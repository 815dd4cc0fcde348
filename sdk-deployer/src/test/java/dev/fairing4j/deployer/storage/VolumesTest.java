package dev.fairing4j.deployer.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.testing.CrdSchemaValidator;
import dev.fairing4j.deployer.Fixtures;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The storage values: checks before any call, manifests, fluent copies, short descriptions. */
class VolumesTest {
  private static final HostPathVolume MODELS = Volumes.hostPathPersistentVolume("traindb-models",
      "/mnt/traindb/models", "10Gi", List.of("ReadWriteOnce"), Map.of("app", "traindb-models"));
  private static final VolumeClaim CLAIM = Volumes.claim("traindb-models-claim", "10Gi",
      Map.of("app", "traindb-models"), "");

  @Test
  void theSeedScenariosVolumeAndClaimRenderValidManifests() {
    String yaml = MODELS.toYaml() + CLAIM.toYaml();
    CrdSchemaValidator.load().assertAllValid(yaml);

    List<Map<String, Object>> docs = Fixtures.parse(yaml);
    Map<String, Object> volume = docs.get(0);
    assertThat(volume).containsEntry("apiVersion", "v1").containsEntry("kind",
        "PersistentVolume");
    assertThat(Fixtures.<String>at(volume, "metadata", "name")).isEqualTo("traindb-models");
    assertThat(Fixtures.<Map<String, Object>>at(volume, "metadata", "labels"))
        .containsEntry("app", "traindb-models")
        .containsEntry("app.kubernetes.io/managed-by", "fairing4j");
    assertThat(Fixtures.<String>at(volume, "spec", "hostPath", "path"))
        .isEqualTo("/mnt/traindb/models");
    assertThat(Fixtures.<String>at(volume, "spec", "capacity", "storage")).isEqualTo("10Gi");
    assertThat(Fixtures.<List<String>>at(volume, "spec", "accessModes"))
        .containsExactly("ReadWriteOnce");
    assertThat(Fixtures.<String>at(volume, "spec", "persistentVolumeReclaimPolicy"))
        .isEqualTo("Retain");

    Map<String, Object> claim = docs.get(1);
    assertThat(claim).containsEntry("kind", "PersistentVolumeClaim");
    assertThat(Fixtures.<Map<String, Object>>at(claim, "spec", "selector", "matchLabels"))
        .isEqualTo(Map.of("app", "traindb-models"));
    assertThat(Fixtures.<String>at(claim, "spec", "storageClassName")).isEmpty();
    assertThat(Fixtures.<String>at(claim, "spec", "resources", "requests", "storage"))
        .isEqualTo("10Gi");
  }

  @Test
  void aClaimWithoutClassLeavesItToTheClusterDefault() {
    Map<String, Object> claim = Volumes.claim("scratch", "1Gi").manifest();
    assertThat(Fixtures.<Map<String, Object>>at(claim, "spec")).doesNotContainKeys(
        "storageClassName", "selector");
    assertThat(Volumes.claim("scratch", "1Gi").withStorageClass("fast").manifest())
        .satisfies(m -> assertThat(Fixtures.<String>at(m, "spec", "storageClassName"))
            .isEqualTo("fast"));
  }

  @Test
  void valuesAreImmutableAndEveryWithReturnsACheckedCopy() {
    HostPathVolume bigger = MODELS.withCapacity("20Gi").withAccessModes("RWX", "ReadOnlyMany")
        .withLabel("tier", "gold");
    assertThat(MODELS.capacity()).isEqualTo("10Gi");
    assertThat(bigger.capacity()).isEqualTo("20Gi");
    assertThat(bigger.accessModes()).containsExactly(AccessMode.READ_ONLY_MANY,
        AccessMode.READ_WRITE_MANY);
    assertThat(bigger.labels()).containsEntry("tier", "gold").containsEntry("app",
        "traindb-models");
    assertThat(MODELS.withCapacity("10Gi")).isEqualTo(MODELS);
    assertThat(CLAIM.withSize("20Gi").withAccessModes("ReadWriteMany").size()).isEqualTo("20Gi");
    assertThat(CLAIM.withDefaultStorageClass().storageClass()).isEmpty();
    assertThat(MODELS.manifest()).isNotSameAs(MODELS.manifest()).isEqualTo(MODELS.manifest());
  }

  @Test
  void descriptionsAreShort() {
    assertThat(MODELS).hasToString(
        "PersistentVolume traindb-models (hostPath /mnt/traindb/models, 10Gi, ReadWriteOnce)");
    assertThat(CLAIM).hasToString("PersistentVolumeClaim traindb-models-claim (10Gi,"
        + " ReadWriteOnce, selector {app=traindb-models}, class '')");
  }

  static Stream<Arguments> badInput() {
    return Stream.of(
        bad("name", () -> Volumes.hostPathPersistentVolume("Models", "/mnt/m", "1Gi"),
            "lower-case"),
        bad("path", () -> Volumes.hostPathPersistentVolume("models", "mnt/m", "1Gi"),
            "absolute"),
        bad("path", () -> Volumes.hostPathPersistentVolume("models", "/mnt/../etc", "1Gi"),
            "/etc"),
        bad("capacity", () -> Volumes.hostPathPersistentVolume("models", "/mnt/m", "10GB"),
            "10Gi"),
        bad("capacity", () -> Volumes.hostPathPersistentVolume("models", "/mnt/m", "0"),
            "10Gi"),
        bad("accessModes", () -> Volumes.hostPathPersistentVolume("models", "/mnt/m", "1Gi",
            List.of("ReadWriteSometimes"), Map.of()), "ReadWriteOncePod"),
        bad("accessModes", () -> Volumes.hostPathPersistentVolume("models", "/mnt/m", "1Gi",
            List.of(), Map.of()), "ReadWriteOnce"),
        bad("label key", () -> Volumes.hostPathPersistentVolume("models", "/mnt/m", "1Gi",
            List.of("ReadWriteOnce"), Map.of("bad key", "x")), "prefix/"),
        bad("name", () -> Volumes.claim("claim_1", "1Gi"), "lower-case"),
        bad("size", () -> Volumes.claim("claim", "4Gx"), "suffix"),
        bad("storageClass", () -> Volumes.claim("claim", "1Gi", Map.of(), "Fast"),
            "lower-case"),
        bad("accessModes", () -> CLAIM.withAccessModes("rwo"), "ReadWriteOnce"));
  }

  private static Arguments bad(String field, Supplier<Object> make, String fixMentions) {
    return Arguments.of(field, make, fixMentions);
  }

  @ParameterizedTest(name = "{0}: {2}")
  @MethodSource("badInput")
  void badInputNamesTheFieldAndTheFix(String field, Supplier<Object> make, String fixMentions) {
    assertThatThrownBy(make::get).isInstanceOfSatisfying(InvalidInputException.class, e -> {
      assertThat(e.field()).isEqualTo(field);
      assertThat(e.fix() + " " + e.getMessage()).contains(fixMentions);
    });
  }
}
