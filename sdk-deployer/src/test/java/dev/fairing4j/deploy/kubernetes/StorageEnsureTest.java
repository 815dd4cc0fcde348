package dev.fairing4j.deploy.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.testing.KubernetesApiFixture;
import dev.fairing4j.deploy.Clusters;
import dev.fairing4j.deploy.Fixtures.CapturingCluster;
import dev.fairing4j.deploy.kubernetes.KubernetesApiException.Problem;
import dev.fairing4j.deploy.kubernetes.internal.JsonTree;
import dev.fairing4j.deploy.storage.ClusterStorage;
import dev.fairing4j.deploy.storage.Ensured;
import dev.fairing4j.deploy.storage.Ensured.Action;
import dev.fairing4j.deploy.storage.HostPathVolume;
import dev.fairing4j.deploy.storage.StorageConflictException;
import dev.fairing4j.deploy.storage.VolumeClaim;
import dev.fairing4j.deploy.storage.Volumes;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Volumes and claims created idempotently on the CRUD mock. */
class StorageEnsureTest {
  private static final String PVS = "/api/v1/persistentvolumes";
  private static final String CLAIMS = "/api/v1/namespaces/team/persistentvolumeclaims";
  private static final HostPathVolume MODELS = Volumes.hostPathPersistentVolume("traindb-models",
      "/mnt/traindb/models", "10Gi", List.of("ReadWriteOnce"), Map.of("app", "traindb-models"));
  private static final VolumeClaim CLAIM = Volumes.claim("traindb-models-claim", "10Gi",
      Map.of("app", "traindb-models"), "");

  @RegisterExtension
  static final KubernetesApiFixture K8S = new KubernetesApiFixture();

  private final MockObjects mock = new MockObjects(K8S);
  private ClusterStorage storage;

  @BeforeEach
  void connect() {
    storage = Volumes.on(Clusters.kubernetes().kubeconfig(K8S.kubeconfig())
        .withTimings(TestJobs.FAST)).inNamespace("team");
  }

  @Test
  void createsTheVolumeFirstThenTheClaimAsRendered() {
    List<Ensured> results = storage.ensure(CLAIM, MODELS);

    assertThat(results).containsExactly(
        new Ensured("PersistentVolume", "traindb-models", Optional.empty(), Action.CREATED),
        new Ensured("PersistentVolumeClaim", "traindb-models-claim", Optional.of("team"),
            Action.CREATED));
    assertThat(K8S.requestLines()).containsExactly(
        "GET " + PVS + "/traindb-models", "POST " + PVS,
        "GET " + CLAIMS + "/traindb-models-claim", "POST " + CLAIMS);
    Map<String, Object> volume = mock.get(PVS + "/traindb-models");
    assertThat(volume.get("spec")).isEqualTo(MODELS.manifest().get("spec"));
    Map<String, Object> claim = mock.get(CLAIMS + "/traindb-models-claim");
    assertThat(claim.get("spec")).isEqualTo(CLAIM.manifest().get("spec"));
    assertThat(JsonTree.string(claim, "metadata", "namespace")).contains("team");
  }

  @Test
  void aSecondEnsureOnlyReads() {
    storage.ensure(MODELS, CLAIM);
    int before = K8S.requestCount();

    List<Ensured> again = storage.ensure(MODELS, CLAIM);

    assertThat(again).extracting(Ensured::action).containsOnly(Action.UNCHANGED);
    assertThat(K8S.requestCount() - before).isEqualTo(2);
    assertThat(K8S.requestLines().subList(before, K8S.requestCount())).allSatisfy(line ->
        assertThat(line).startsWith("GET "));
  }

  @Test
  void serverDefaultsAndOtherSpellingsAreNoDifference() {
    // As a real server stores them: defaults filled in, quantity canonicalised, modes reordered.
    mock.post(PVS, "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolume\",\"metadata\":{"
        + "\"name\":\"traindb-models\",\"labels\":{\"app\":\"traindb-models\",\"extra\":\"x\"}},"
        + "\"spec\":{\"capacity\":{\"storage\":\"10240Mi\"},\"accessModes\":[\"ReadWriteOnce\"],"
        + "\"hostPath\":{\"path\":\"/mnt/traindb/models\",\"type\":\"\"},"
        + "\"persistentVolumeReclaimPolicy\":\"Delete\",\"volumeMode\":\"Filesystem\"}}");
    mock.post(CLAIMS, "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":{"
        + "\"name\":\"scratch\"},\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],"
        + "\"storageClassName\":\"standard\",\"volumeName\":\"pvc-123\",\"volumeMode\":"
        + "\"Filesystem\",\"resources\":{\"requests\":{\"storage\":\"1073741824\"}}}}");
    int before = K8S.requestCount();

    assertThat(storage.ensure(MODELS, Volumes.claim("scratch", "1Gi")))
        .extracting(Ensured::action).containsOnly(Action.UNCHANGED);
    assertThat(K8S.requestCount() - before).isEqualTo(2);
  }

  @Test
  void aVolumeWithAnotherPathNamesTheFieldBothValuesAndTheFix() {
    storage.ensure(MODELS);

    assertThatThrownBy(() -> storage.ensure(MODELS.withPath("/mnt/other")))
        .isInstanceOfSatisfying(StorageConflictException.class, e -> {
          assertThat(e.field()).isEqualTo("spec.hostPath.path");
          assertThat(e.existingValue()).isEqualTo("'/mnt/traindb/models'");
          assertThat(e.wantedValue()).isEqualTo("'/mnt/other'");
          assertThat(e.getMessage()).contains("PersistentVolume traindb-models")
              .contains("/mnt/traindb/models").contains("/mnt/other");
          assertThat(e.hint().orElseThrow()).contains("kubectl delete pv traindb-models")
              .contains("another name");
        });
    assertThat(JsonTree.string(mock.get(PVS + "/traindb-models"), "spec", "hostPath", "path"))
        .contains("/mnt/traindb/models");
  }

  @Test
  void aReleasedVolumeSaysItBindsNoClaimAndHowToFreeIt() {
    // Seen on a real cluster: after its claim was deleted the volume stays Released, and a
    // claim ensured again for it stayed Pending; ensure(..) said UNCHANGED, CREATED.
    storage.ensure(MODELS);
    mock.mergePatch(PVS + "/traindb-models", """
        {"spec":{"claimRef":{"namespace":"old","name":"traindb-models-claim"}}}""");
    mock.mergePatch(PVS + "/traindb-models/status", "{\"status\":{\"phase\":\"Released\"}}");

    assertThatThrownBy(() -> storage.ensure(MODELS, CLAIM))
        .isInstanceOfSatisfying(StorageConflictException.class, e -> {
          assertThat(e.field()).isEqualTo("status.phase");
          assertThat(e.existingValue()).isEqualTo(
              "Released (its claim old/traindb-models-claim was deleted)");
          assertThat(e.getMessage()).contains("kubectl patch pv traindb-models --type json -p"
              + " '[{\"op\":\"remove\",\"path\":\"/spec/claimRef\"}]'", "kubectl delete pv"
              + " traindb-models");
        });
    assertThat(K8S.requestLines()).noneMatch(l -> l.startsWith("POST " + CLAIMS));
  }

  @Test
  void everyImmutableFieldIsCompared() {
    storage.ensure(MODELS, CLAIM);
    int before = K8S.requestCount();

    assertConflict(MODELS.withCapacity("20Gi"), "spec.capacity.storage");
    assertConflict(MODELS.withAccessModes("ReadWriteMany"), "spec.accessModes");
    assertConflict(MODELS.withStorageClass("manual"), "spec.storageClassName");
    assertConflict(MODELS.withLabel("tier", "gold"), "metadata.labels");
    assertConflict(CLAIM.withAccessModes("ReadOnlyMany"), "spec.accessModes");
    assertConflict(CLAIM.withSelector(Map.of("app", "other")), "spec.selector");
    assertConflict(CLAIM.withStorageClass("fast"), "spec.storageClassName");
    assertConflict(CLAIM.withSize("5Gi"), "spec.resources.requests.storage");
    // Each conflict was found by one read and changed nothing.
    assertThat(K8S.requestLines().subList(before, K8S.requestCount()))
        .hasSize(8).allSatisfy(line -> assertThat(line).startsWith("GET "));
  }

  @Test
  void aClaimThatShouldGrowIsPatched() {
    storage.ensure(CLAIM);

    assertThat(storage.ensure(CLAIM.withSize("20Gi"))).extracting(Ensured::action)
        .containsExactly(Action.EXPANDED);
    assertThat(K8S.requestLines()).last().isEqualTo("PATCH " + CLAIMS + "/traindb-models-claim");
    assertThat(JsonTree.string(mock.get(CLAIMS + "/traindb-models-claim"), "spec", "resources",
        "requests", "storage")).contains("20Gi");
  }

  @Test
  void rbacDenialOfVolumesAsksForAClusterRole() {
    K8S.server().expect().get().withPath(PVS + "/traindb-models")
        .andReturn(403, TestJobs.status(403, "Forbidden", "persistentvolumes \"traindb-models\""
            + " is forbidden: User \"system:serviceaccount:team:fairing4j\" cannot get resource"
            + " \"persistentvolumes\" in API group \"\" at the cluster scope",
            "{\"name\":\"traindb-models\",\"kind\":\"persistentvolumes\"}"))
        .once();

    assertThatThrownBy(() -> storage.ensure(MODELS, CLAIM))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.FORBIDDEN);
          assertThat(e.getMessage()).contains("'get'").contains("persistentvolumes")
              .contains("cluster-wide");
          assertThat(e.hint().orElseThrow()).contains("a ClusterRole")
              .contains("resources: [\"persistentvolumes\"]")
              .contains("kubectl auth can-i get persistentvolumes");
        });
    assertThat(mock.get(CLAIMS + "/traindb-models-claim")).isEmpty();
  }

  @Test
  void theNamespaceDefaultsToTheClustersAndNothingIsSentForBadCalls() {
    ClusterStorage unscoped = Volumes.on(Clusters.kubernetes().kubeconfig(K8S.kubeconfig())
        .namespace("ml"));
    assertThat(unscoped.namespace()).isEqualTo("ml");
    assertThat(unscoped.ensure(CLAIM)).singleElement().extracting(Ensured::namespace)
        .isEqualTo(Optional.of("ml"));
    int before = K8S.requestCount();

    assertThatThrownBy(() -> unscoped.ensure()).isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> Volumes.on(new CapturingCluster()).ensure(MODELS))
        .isInstanceOfSatisfying(InvalidInputException.class, e ->
            assertThat(e.field()).isEqualTo("cluster"));
    assertThatThrownBy(() -> unscoped.inNamespace("Team"))
        .isInstanceOfSatisfying(InvalidInputException.class, e ->
            assertThat(e.field()).isEqualTo("namespace"));
    assertThat(K8S.requestCount()).isEqualTo(before);
    assertThat(unscoped.inNamespace("team").toString()).contains("namespace=team");
  }

  private void assertConflict(Object wanted, String field) {
    assertThatThrownBy(() -> storage.ensure((dev.fairing4j.deploy.storage.StorageObject) wanted))
        .as(field).isInstanceOfSatisfying(StorageConflictException.class, e -> {
          assertThat(e.field()).isEqualTo(field);
          assertThat(e.hint()).isPresent();
        });
  }

}
