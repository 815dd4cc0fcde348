package dev.fairing4j.deployer.kubernetes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.testing.AuditLog;
import dev.fairing4j.core.testing.KubeApiServer.User;
import dev.fairing4j.core.testing.RealKubernetes;
import dev.fairing4j.deployer.Fixtures.CapturingCluster;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.kubernetes.KubernetesApiException.Problem;
import dev.fairing4j.deployer.storage.ClusterStorage;
import dev.fairing4j.deployer.storage.Ensured.Action;
import dev.fairing4j.deployer.storage.Ensured;
import dev.fairing4j.deployer.storage.HostPathVolume;
import dev.fairing4j.deployer.storage.StorageConflictException;
import dev.fairing4j.deployer.storage.StorageObject;
import dev.fairing4j.deployer.storage.VolumeClaim;
import dev.fairing4j.deployer.storage.Volumes;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Volumes and claims created idempotently on a real API server, with the volume binder running:
 * what is stored (and the defaults the server adds, which are no difference), how many requests
 * a repeated ensure costs, every conflict, claims that bind, and which claims the server lets
 * grow. PersistentVolumes are cluster-wide, so each test names its volume and its labels after
 * its namespace; otherwise a claim could bind another test's volume.
 */
class StorageEnsureIT {
  private static final String PVS = "/api/v1/persistentvolumes";

  @RegisterExtension
  static final RealKubernetes K8S = RealKubernetes.shared().withControllers();

  private final RealApiObjects api = new RealApiObjects(K8S);
  private String claims;
  private String pv;
  private HostPathVolume models;
  private VolumeClaim claim;
  private ClusterStorage storage;

  @BeforeEach
  void connect() {
    String ns = api.ns();
    claims = api.core("persistentvolumeclaims");
    pv = ns + "-models";
    models = Volumes.hostPathPersistentVolume(pv, "/mnt/traindb/models", "10Gi",
        List.of("ReadWriteOnce"), Map.of("app", ns));
    claim = Volumes.claim("traindb-models-claim", "10Gi", Map.of("app", ns), "");
    storage = Volumes.on(api.cluster()).inNamespace(ns);
  }

  @Test
  void createsTheVolumeFirstThenTheClaimAsRendered() {
    List<Ensured> results = storage.ensure(claim, models);

    assertThat(results).containsExactly(
        new Ensured("PersistentVolume", pv, Optional.empty(), Action.CREATED),
        new Ensured("PersistentVolumeClaim", "traindb-models-claim", Optional.of(api.ns()),
            Action.CREATED));
    assertThat(K8S.requestLines()).containsExactly(
        "get " + PVS + "/" + pv, "create " + PVS,
        "get " + claims + "/traindb-models-claim", "create " + claims);
    // Stored as sent plus the server's defaults (and, once bound, the binder's references).
    Map<String, Object> volume = api.get(PVS + "/" + pv);
    assertThat(RealApiObjects.addedByServer(models.manifest().get("spec"), volume.get("spec")))
        .filteredOn(field -> !field.startsWith(".claimRef="))
        .containsExactly(".volumeMode=Filesystem");
    Map<String, Object> stored = api.get(claims + "/traindb-models-claim");
    assertThat(RealApiObjects.addedByServer(claim.manifest().get("spec"), stored.get("spec")))
        .filteredOn(field -> !field.startsWith(".volumeName="))
        .containsExactly(".volumeMode=Filesystem");
    assertThat(JsonTree.string(stored, "metadata", "namespace")).contains(api.ns());
  }

  @Test
  void theClaimBindsTheEnsuredVolume() {
    storage.ensure(models, claim);

    RealApiObjects.await("claim Bound", () -> JsonTree.string(api.get(claims
        + "/traindb-models-claim"), "status", "phase").orElse("").equals("Bound"));
    assertThat(JsonTree.string(api.get(claims + "/traindb-models-claim"), "spec", "volumeName"))
        .contains(pv);
    Map<String, Object> volume = api.get(PVS + "/" + pv);
    assertThat(JsonTree.string(volume, "spec", "claimRef", "name"))
        .contains("traindb-models-claim");
    assertThat(JsonTree.string(volume, "spec", "claimRef", "namespace")).contains(api.ns());
    // Bound, the pair is still as wanted: the binder's fields are no difference.
    assertThat(storage.ensure(models, claim)).extracting(Ensured::action)
        .containsOnly(Action.UNCHANGED);
  }

  @Test
  void aReleasedVolumeSaysItBindsNoClaimAndHowToFreeIt() {
    // Seen on a real cluster: after its claim was deleted the volume stays Released, and a claim
    // ensured again for it stayed Pending; ensure(..) said UNCHANGED, CREATED. Here the volume
    // binder itself releases a volume whose bound claim (by uid) no longer exists.
    storage.ensure(models);
    api.mergePatch(PVS + "/" + pv, "{\"spec\":{\"claimRef\":{\"namespace\":\"old\","
        + "\"name\":\"traindb-models-claim\",\"uid\":\"00000000-0000-0000-0000-000000000001\"}}}");
    RealApiObjects.await("volume Released by the binder", () -> JsonTree.string(
        api.get(PVS + "/" + pv), "status", "phase").orElse("").equals("Released"));
    AuditLog.Mark mark = api.server().audit().mark();

    assertThatThrownBy(() -> storage.ensure(models, claim))
        .isInstanceOfSatisfying(StorageConflictException.class, e -> {
          assertThat(e.field()).isEqualTo("status.phase");
          assertThat(e.existingValue()).isEqualTo(
              "Released (its claim old/traindb-models-claim was deleted)");
          assertThat(e.getMessage()).contains("kubectl patch pv " + pv + " --type json -p"
              + " '[{\"op\":\"remove\",\"path\":\"/spec/claimRef\"}]'", "kubectl delete pv "
              + pv);
        });
    assertThat(api.linesOf(mark, User.SDK.username())).noneMatch(l -> l.startsWith("create"));
  }

  @Test
  void aSecondEnsureOnlyReads() {
    storage.ensure(models, claim);
    AuditLog.Mark mark = api.server().audit().mark();

    List<Ensured> again = storage.ensure(models, claim);

    assertThat(again).extracting(Ensured::action).containsOnly(Action.UNCHANGED);
    assertThat(api.linesOf(mark, User.SDK.username())).containsExactly(
        "get " + PVS + "/" + pv, "get " + claims + "/traindb-models-claim");
  }

  @Test
  void serverDefaultsAndOtherSpellingsAreNoDifference() {
    // Other spellings of the same values; the server canonicalises quantities and fills in
    // defaults.
    api.post(PVS, "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolume\",\"metadata\":{"
        + "\"name\":\"" + pv + "\",\"labels\":{\"app\":\"" + api.ns() + "\",\"extra\":\"x\"}},"
        + "\"spec\":{\"capacity\":{\"storage\":\"10240Mi\"},\"accessModes\":[\"ReadWriteOnce\"],"
        + "\"hostPath\":{\"path\":\"/mnt/traindb/models\",\"type\":\"\"},"
        + "\"persistentVolumeReclaimPolicy\":\"Delete\",\"volumeMode\":\"Filesystem\"}}");
    api.post(claims, "{\"apiVersion\":\"v1\",\"kind\":\"PersistentVolumeClaim\",\"metadata\":{"
        + "\"name\":\"scratch\"},\"spec\":{\"accessModes\":[\"ReadWriteOnce\"],"
        + "\"storageClassName\":\"standard\",\"volumeName\":\"pvc-123\",\"volumeMode\":"
        + "\"Filesystem\",\"resources\":{\"requests\":{\"storage\":\"1073741824\"}}}}");
    AuditLog.Mark mark = api.server().audit().mark();

    assertThat(storage.ensure(models, Volumes.claim("scratch", "1Gi")))
        .extracting(Ensured::action).containsOnly(Action.UNCHANGED);
    assertThat(api.linesOf(mark, User.SDK.username())).hasSize(2)
        .allSatisfy(line -> assertThat(line).startsWith("get "));
  }

  @Test
  void aVolumeWithAnotherPathNamesTheFieldBothValuesAndTheFix() {
    storage.ensure(models);

    assertThatThrownBy(() -> storage.ensure(models.withPath("/mnt/other")))
        .isInstanceOfSatisfying(StorageConflictException.class, e -> {
          assertThat(e.field()).isEqualTo("spec.hostPath.path");
          assertThat(e.existingValue()).isEqualTo("'/mnt/traindb/models'");
          assertThat(e.wantedValue()).isEqualTo("'/mnt/other'");
          assertThat(e.getMessage()).contains("PersistentVolume " + pv)
              .contains("/mnt/traindb/models").contains("/mnt/other");
          assertThat(e.hint().orElseThrow()).contains("kubectl delete pv " + pv)
              .contains("another name");
        });
    assertThat(JsonTree.string(api.get(PVS + "/" + pv), "spec", "hostPath", "path"))
        .contains("/mnt/traindb/models");
  }

  @Test
  void everyImmutableFieldIsCompared() {
    storage.ensure(models, claim);
    AuditLog.Mark mark = api.server().audit().mark();

    assertConflict(models.withCapacity("20Gi"), "spec.capacity.storage");
    assertConflict(models.withAccessModes("ReadWriteMany"), "spec.accessModes");
    assertConflict(models.withStorageClass("manual"), "spec.storageClassName");
    assertConflict(models.withLabel("tier", "gold"), "metadata.labels");
    assertConflict(claim.withAccessModes("ReadOnlyMany"), "spec.accessModes");
    assertConflict(claim.withSelector(Map.of("app", "other")), "spec.selector");
    assertConflict(claim.withStorageClass("fast"), "spec.storageClassName");
    assertConflict(claim.withSize("5Gi"), "spec.resources.requests.storage");
    // Each conflict was found by one read and changed nothing.
    assertThat(api.linesOf(mark, User.SDK.username()))
        .hasSize(8).allSatisfy(line -> assertThat(line).startsWith("get "));
  }

  @Test
  void aBoundClaimOfAnExpandableClassIsPatched() {
    String expandable = storageClass(true);
    VolumeClaim small = boundClaim(expandable, "grow");

    assertThat(storage.ensure(small.withSize("2Gi"))).extracting(Ensured::action)
        .containsExactly(Action.EXPANDED);
    assertThat(K8S.requestLines()).last().isEqualTo("patch " + claims + "/grow");
    assertThat(JsonTree.string(api.get(claims + "/grow"), "spec", "resources",
        "requests", "storage")).contains("2Gi");
  }

  @Test
  void aClaimTheServerWouldNotLetGrowIsAConflictThatSaysWhy() {
    // Bound to a static volume, without a StorageClass: the server never resizes it.
    storage.ensure(models, claim);
    RealApiObjects.await("claim Bound", () -> JsonTree.string(api.get(claims
        + "/traindb-models-claim"), "status", "phase").orElse("").equals("Bound"));
    AuditLog.Mark mark = api.server().audit().mark();
    assertThatThrownBy(() -> storage.ensure(claim.withSize("20Gi")))
        .isInstanceOfSatisfying(StorageConflictException.class, e -> {
          assertThat(e.field()).isEqualTo("spec.resources.requests.storage");
          assertThat(e.existingValue()).isEqualTo("10Gi");
          assertThat(e.wantedValue()).isEqualTo("20Gi");
          assertThat(e.hint().orElseThrow()).contains("without a StorageClass")
              .contains("allowVolumeExpansion").contains("ask for at most 10Gi");
        });

    // Of a class, but not bound (no volume matches it): the server refuses any spec change.
    String expandable = storageClass(true);
    VolumeClaim waiting = Volumes.claim("waiting", "1Gi", Map.of("app", "nothing-matches"),
        expandable);
    storage.ensure(waiting);
    assertThatThrownBy(() -> storage.ensure(waiting.withSize("2Gi")))
        .isInstanceOfSatisfying(StorageConflictException.class, e ->
            assertThat(e.hint().orElseThrow()).contains("the claim is Pending, not Bound")
                .contains("kubectl get pvc waiting -n " + api.ns()));
    assertThat(api.linesOf(mark, User.SDK.username()))
        .noneMatch(line -> line.startsWith("patch "));
  }

  @Test
  void aClassWithoutVolumeExpansionIsRefusedByAdmissionNotByRbac() {
    VolumeClaim small = boundClaim(storageClass(false), "fixed");

    assertThatThrownBy(() -> storage.ensure(small.withSize("2Gi")))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.FORBIDDEN);
          assertThat(e.httpStatus()).contains(403);
          assertThat(e.getMessage()).contains("not an RBAC denial")
              .contains("only dynamically provisioned pvc can be resized")
              .doesNotContain("RBAC denies");
          assertThat(e.hint().orElseThrow()).contains("admission")
              .doesNotContain("Role");
        });
    assertThat(JsonTree.string(api.get(claims + "/fixed"), "spec", "resources", "requests",
        "storage")).contains("1Gi");
  }

  @Test
  void rbacDenialOfVolumesAsksForAClusterRole() {
    ClusterStorage unprivileged = Volumes.on(RealApiObjects.cluster(
        K8S.kubeconfig(User.UNPRIVILEGED))).inNamespace(api.ns());

    assertThatThrownBy(() -> unprivileged.ensure(models, claim))
        .isInstanceOfSatisfying(KubernetesApiException.class, e -> {
          assertThat(e.problem()).isEqualTo(Problem.FORBIDDEN);
          assertThat(e.getMessage()).contains("'get'").contains("persistentvolumes")
              .contains("cluster-wide")
              .contains("User \"" + User.UNPRIVILEGED.username() + "\" cannot get resource"
                  + " \"persistentvolumes\" in API group \"\" at the cluster scope");
          assertThat(e.hint().orElseThrow()).contains("a ClusterRole")
              .contains("resources: [\"persistentvolumes\"]")
              .contains("kubectl auth can-i get persistentvolumes");
        });
    assertThat(api.get(PVS + "/" + pv)).isEmpty();
    assertThat(api.get(claims + "/traindb-models-claim")).isEmpty();
  }

  @Test
  void theNamespaceDefaultsToTheClustersAndNothingIsSentForBadCalls() {
    String ml = api.server().createNamespace("ml");
    ClusterStorage unscoped = Volumes.on(api.cluster().namespace(ml));
    assertThat(unscoped.namespace()).isEqualTo(ml);
    assertThat(unscoped.ensure(claim)).singleElement().extracting(Ensured::namespace)
        .isEqualTo(Optional.of(ml));
    assertThat(api.get("/api/v1/namespaces/" + ml + "/persistentvolumeclaims/"
        + "traindb-models-claim")).isNotEmpty();
    AuditLog.Mark mark = api.server().audit().mark();

    assertThatThrownBy(() -> unscoped.ensure()).isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> Volumes.on(new CapturingCluster()).ensure(models))
        .isInstanceOfSatisfying(InvalidInputException.class, e ->
            assertThat(e.field()).isEqualTo("cluster"));
    assertThatThrownBy(() -> unscoped.inNamespace("Team"))
        .isInstanceOfSatisfying(InvalidInputException.class, e ->
            assertThat(e.field()).isEqualTo("namespace"));
    assertThat(api.server().audit().since(mark)).isEmpty();
    assertThat(unscoped.inNamespace("team").toString()).contains("namespace=team");
  }

  /** A StorageClass of this test; a provisioner that never runs, so volumes are made here. */
  private String storageClass(boolean allowVolumeExpansion) {
    String name = api.ns() + (allowVolumeExpansion ? "-expandable" : "-fixed");
    api.post("/apis/storage.k8s.io/v1/storageclasses", Map.of("apiVersion", "storage.k8s.io/v1",
        "kind", "StorageClass", "metadata", Map.of("name", name),
        "provisioner", "example.com/none", "allowVolumeExpansion", allowVolumeExpansion));
    return name;
  }

  /** A 1Gi claim of {@code className}, bound by the binder to a volume of that class. */
  private VolumeClaim boundClaim(String className, String name) {
    String label = api.ns() + "-" + name;
    storage.ensure(Volumes.hostPathPersistentVolume(label, "/mnt/" + name, "1Gi",
        List.of("ReadWriteOnce"), Map.of("app", label)).withStorageClass(className));
    VolumeClaim small = Volumes.claim(name, "1Gi", Map.of("app", label), className);
    storage.ensure(small);
    RealApiObjects.await("claim " + name + " Bound", () -> JsonTree.string(api.get(claims + "/"
        + name), "status", "phase").orElse("").equals("Bound"));
    return small;
  }

  private void assertConflict(StorageObject wanted, String field) {
    assertThatThrownBy(() -> storage.ensure(wanted))
        .as(field).isInstanceOfSatisfying(StorageConflictException.class, e -> {
          assertThat(e.field()).isEqualTo(field);
          assertThat(e.hint()).isPresent();
        });
  }
}
