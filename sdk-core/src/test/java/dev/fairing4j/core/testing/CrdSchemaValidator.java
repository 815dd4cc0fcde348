package dev.fairing4j.core.testing;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Checks rendered manifests the way a Kubernetes API server with the Kubeflow training operator
 * installed would, without a cluster: the real v1.9.4 CRD structural schemas (test resources
 * {@code kubeflow/schemas/*.json}), the operator webhook's rules from CONTRACT.md, and the core
 * validation a pod template gets when its pods are created.
 *
 * <p>Unknown fields are errors, as with {@code kubectl create --validate=strict}: a misspelt field
 * is otherwise dropped silently by the server and the job runs without it. Each violation is one
 * string that starts with the JSON path of the offending value, e.g.
 * {@code spec.pytorchReplicaSpecs.Master.template.spec.containers[0].resources.limits.memory: '4Gx'
 * does not match the quantity pattern}.
 *
 * <pre>{@code
 * CrdSchemaValidator.load().assertValid(yamlOrMap);       // one manifest: schema + webhook + pods
 * CrdSchemaValidator.load().assertAllValid(multiDocYaml); // every document of a dryRun()
 * }</pre>
 *
 * <p>Besides the six kubeflow.org/v1 kinds it knows Kubeflow Trainer v2's TrainJob
 * ({@code trainer.kubeflow.org/v1alpha1}, from the v2.3.0 CRD in the test resources, or v2.0.1's
 * with {@link #loadTrainerV20()}), batch/v1 Job (its pod template gets the PyTorchJob schema's
 * full core/v1 PodTemplateSpec) and, with lighter hand-written checks, v1 Service,
 * PersistentVolume, PersistentVolumeClaim, Secret, ConfigMap, Namespace and ServiceAccount.
 * Anything else is reported as a violation rather than passed unchecked.
 *
 * <p>CEL rules ({@code x-kubernetes-validations}) are evaluated where the validator knows the
 * rule's exact text (the TrainJob CRD's: metadata.name, managedBy, storageUri, trainerStatus);
 * transition rules ({@code self == oldSelf}) concern updates and pass on create; a schema with
 * any other rule fails to load, so a new rule is never passed unchecked. Not checked:
 * defaulting, and server-side admission beyond what is listed here.
 */
public final class CrdSchemaValidator {
  /** The kubeflow.org/v1 kinds whose schemas ship in the test resources. */
  public static final List<String> KINDS =
      List.of("PyTorchJob", "TFJob", "MPIJob", "XGBoostJob", "JAXJob", "PaddleJob");
  private static final String KUBEFLOW_API_VERSION = "kubeflow.org/v1";
  /** Kubeflow Trainer v2's API version. */
  public static final String TRAINER_API_VERSION = "trainer.kubeflow.org/v1alpha1";
  /** KServe's served version. */
  public static final String KSERVE_API_VERSION = "serving.kserve.io/v1beta1";
  /** The TrainJob CRD (v2.3.0) in the test resources. */
  public static final String TRAINJOB_CRD = "kubeflow/trainer/crds/trainer.kubeflow.org_trainjobs.yaml";
  /** KServe v0.19.0's InferenceService CRD, as {@code ../shared/kserve/crds} has it. */
  public static final String INFERENCE_SERVICE_CRD =
      "kserve/crds/serving.kserve.io_inferenceservices.yaml";
  /** The TrainJob CRD of Trainer v2.0.1 in the test resources. */
  public static final String TRAINJOB_V2_0_CRD =
      "kubeflow/trainer-v2.0.1/crds/trainer.kubeflow.org_trainjobs.yaml";
  /**
   * The environment the Trainer's webhook reserves in {@code spec.trainer.env} (CONTRACT.md (c)):
   * torch's PET_*, MPI's OMPI_MCA_*, XGBoost's DMLC_*.
   */
  public static final Set<String> TRAINER_RESERVED_ENV = Set.of("PET_NNODES",
      "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT",
      "OMPI_MCA_orte_default_hostfile", "OMPI_MCA_orte_keep_fqdn_hostnames",
      "OMPI_MCA_orte_set_default_slots", "OMPI_MCA_plm_rsh_args", "DMLC_TRACKER_URI",
      "DMLC_TRACKER_PORT", "DMLC_TASK_ID", "DMLC_NUM_WORKER");
  private static final Map<String, String> REPLICA_MAP_KEY = Map.of(
      "PyTorchJob", "pytorchReplicaSpecs", "TFJob", "tfReplicaSpecs",
      "MPIJob", "mpiReplicaSpecs", "XGBoostJob", "xgbReplicaSpecs",
      "JAXJob", "jaxReplicaSpecs", "PaddleJob", "paddleReplicaSpecs");
  private static final Map<String, String> CONTAINER_NAME = Map.of(
      "PyTorchJob", "pytorch", "TFJob", "tensorflow", "MPIJob", "mpi",
      "XGBoostJob", "xgboost", "JAXJob", "jax", "PaddleJob", "paddle");
  private static final String QUANTITY_PATTERN = "^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))"
      + "(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$";
  /** Schema keywords this validator understands or deliberately ignores; others fail loading. */
  private static final Set<String> KNOWN_KEYWORDS = Set.of("type", "properties",
      "additionalProperties", "required", "items", "enum", "pattern", "format", "anyOf",
      "nullable", "default", "description", "x-kubernetes-int-or-string",
      "x-kubernetes-preserve-unknown-fields", "x-kubernetes-list-type",
      "x-kubernetes-list-map-keys", "x-kubernetes-map-type", "x-kubernetes-validations",
      "maxItems", "minItems", "maxLength", "minLength", "minimum", "maximum", "minProperties",
      "maxProperties");

  /** A CEL rule this validator can evaluate on create: {@code self} is the value it sits on. */
  private interface Rule {
    boolean holds(JsonNode self);
  }

  /**
   * Every CEL rule of the loaded schemas, by its exact text. Transition rules compare with the
   * old object, which a create has not, so they hold.
   */
  private static final Map<String, Rule> CEL_RULES = Map.of(
      "self == oldSelf", self -> true,
      "self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",
      self -> !self.at("/metadata/name").isTextual()
          || self.at("/metadata/name").asText().matches("[a-z]([-a-z0-9]*[a-z0-9])?"),
      "size(self.metadata.name) <= 63",
      self -> self.at("/metadata/name").asText("").length() <= 63,
      "self in ['trainer.kubeflow.org/trainjob-controller', 'kueue.x-k8s.io/multikueue']",
      self -> Set.of("trainer.kubeflow.org/trainjob-controller", "kueue.x-k8s.io/multikueue")
          .contains(self.asText()),
      "self == '' || self.matches('^[A-Za-z][A-Za-z0-9+.-]*://.+$')",
      self -> self.asText().isEmpty()
          || Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*://.+$").matcher(self.asText()).find(),
      "has(self.lastUpdatedTime)", self -> self.has("lastUpdatedTime"));
  private static final Set<String> OBJECT_META_FIELDS = Set.of("name", "generateName",
      "namespace", "labels", "annotations", "uid", "resourceVersion", "generation",
      "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "ownerReferences",
      "finalizers", "managedFields", "selfLink");
  private static final Set<String> DEPLOYMENT_SPEC_FIELDS = Set.of("minReadySeconds",
      "paused", "progressDeadlineSeconds", "replicas", "revisionHistoryLimit", "selector",
      "strategy", "template");
  private static final Set<String> JOB_SPEC_FIELDS = Set.of("activeDeadlineSeconds",
      "backoffLimit", "backoffLimitPerIndex", "completionMode", "completions", "managedBy",
      "manualSelector", "maxFailedIndexes", "parallelism", "podFailurePolicy",
      "podReplacementPolicy", "selector", "successPolicy", "suspend", "template",
      "ttlSecondsAfterFinished");

  private static final Pattern DNS1123_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern DNS1123_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final Pattern DNS1035_LABEL = Pattern.compile("[a-z]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern QUALIFIED_NAME =
      Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final Pattern IANA_SVC_NAME = Pattern.compile("[a-z0-9]([a-z0-9-]*[a-z0-9])?");
  private static final Pattern ENV_VAR_NAME = Pattern.compile("[-._a-zA-Z][-._a-zA-Z0-9]*");
  private static final Pattern SIMPLE_KEY = Pattern.compile("[A-Za-z0-9_-]+");
  private static final Pattern QUANTITY = Pattern.compile(
      "([+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+))(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?");

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final YAMLFactory YAML_FACTORY = new YAMLFactory();
  private static final ObjectMapper YAML = new ObjectMapper(YAML_FACTORY);
  private static volatile CrdSchemaValidator loaded;

  private final Map<String, Crd> crds;
  private final JsonNode podTemplateSchema;
  private final Map<String, Pattern> patterns = new ConcurrentHashMap<>();

  /**
   * What one schema file declares: the CRD's identity and its {@code openAPIV3Schema}.
   *
   * @param scope {@code Namespaced} or {@code Cluster}
   */
  public record Crd(String group, String version, String kind, String plural, String scope,
      JsonNode openApiV3Schema) {
    /** A copy: the validator's own tree must not change under it. */
    @Override
    public JsonNode openApiV3Schema() {
      return openApiV3Schema.deepCopy();
    }

    /** {@code group/version}, e.g. {@code kubeflow.org/v1}. */
    public String apiVersion() {
      return group + "/" + version;
    }
  }

  private CrdSchemaValidator(Map<String, Crd> crds) {
    this.crds = crds;
    for (Crd crd : crds.values()) {
      checkRules(crd.openApiV3Schema, crd.kind() + "#");
    }
    this.podTemplateSchema = crds.get("PyTorchJob").openApiV3Schema
        .at("/properties/spec/properties/pytorchReplicaSpecs/additionalProperties/properties/template");
    if (!podTemplateSchema.isObject()) {
      throw new IllegalStateException("PyTorchJob.json has no pod template schema");
    }
  }

  /** The validator with every kind's schema from the classpath; parsed once per JVM. */
  public static CrdSchemaValidator load() {
    CrdSchemaValidator validator = loaded;
    if (validator == null) {
      synchronized (CrdSchemaValidator.class) {
        if (loaded == null) {
          loaded = loadFromClasspath();
        }
        validator = loaded;
      }
    }
    return validator;
  }

  private static volatile CrdSchemaValidator loadedV20;

  /**
   * The same validator with Trainer v2.0.1's TrainJob schema instead of v2.3.0's: for manifests
   * rendered for a cluster that runs v2.0 ({@code podSpecOverrides}, {@code spec.labels}).
   */
  public static CrdSchemaValidator loadTrainerV20() {
    CrdSchemaValidator validator = loadedV20;
    if (validator == null) {
      synchronized (CrdSchemaValidator.class) {
        if (loadedV20 == null) {
          Map<String, Crd> crds = new LinkedHashMap<>(load().crds);
          crds.put("TrainJob", crdFromYaml(TRAINJOB_V2_0_CRD));
          loadedV20 = new CrdSchemaValidator(Map.copyOf(crds));
        }
        validator = loadedV20;
      }
    }
    return validator;
  }

  /**
   * A CRD's first version as a {@link Crd}, read from a CRD manifest (YAML) on the classpath, as
   * an API server would take it: the structural schema of {@code spec.versions[0]}.
   */
  static Crd crdFromYaml(String resource) {
    try (InputStream in = CrdSchemaValidator.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is not on the classpath: depend on "
            + "sdk-core's test-jar (type test-jar, scope test)");
      }
      JsonNode crd = YAML.readTree(in);
      JsonNode spec = crd.path("spec");
      JsonNode version = spec.path("versions").path(0);
      JsonNode schema = version.path("schema").path("openAPIV3Schema");
      checkKeywords(schema, resource + "#");
      return new Crd(spec.path("group").asText(), version.path("name").asText(),
          spec.path("names").path("kind").asText(), spec.path("names").path("plural").asText(),
          spec.path("scope").asText(), schema);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + resource, e);
    }
  }

  // a rule we cannot evaluate would otherwise pass whatever the value
  private static void checkRules(JsonNode schema, String where) {
    for (JsonNode rule : schema.path("x-kubernetes-validations")) {
      String text = rule.path("rule").asText();
      if (!CEL_RULES.containsKey(text)) {
        throw new IllegalStateException("CEL rule '" + text + "' at " + where
            + " is not known to CrdSchemaValidator: add it to CEL_RULES");
      }
    }
    schema.path("properties").properties()
        .forEach(e -> checkRules(e.getValue(), where + "/" + e.getKey()));
    for (String nested : List.of("items", "additionalProperties")) {
      if (schema.path(nested).isObject()) {
        checkRules(schema.get(nested), where + "/" + nested);
      }
    }
    for (JsonNode branch : schema.path("anyOf")) {
      checkRules(branch, where + "/anyOf");
    }
  }

  private static CrdSchemaValidator loadFromClasspath() {
    Map<String, Crd> crds = new LinkedHashMap<>();
    crds.put("TrainJob", crdFromYaml(TRAINJOB_CRD));
    crds.put("InferenceService", crdFromYaml(INFERENCE_SERVICE_CRD));
    for (String kind : KINDS) {
      String resource = "kubeflow/schemas/" + kind + ".json";
      try (InputStream in = CrdSchemaValidator.class.getClassLoader().getResourceAsStream(resource)) {
        if (in == null) {
          throw new IllegalStateException(resource + " is not on the classpath: depend on "
              + "sdk-core's test-jar (type test-jar, scope test)");
        }
        JsonNode file = JSON.readTree(in);
        JsonNode schema = file.path("openAPIV3Schema");
        checkKeywords(schema, resource + "#");
        crds.put(kind, new Crd(file.path("group").asText(), file.path("version").asText(),
            file.path("kind").asText(), file.path("plural").asText(), file.path("scope").asText(),
            schema));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + resource, e);
      }
    }
    return new CrdSchemaValidator(Map.copyOf(crds));
  }

  // a keyword we do not know would otherwise be ignored, and what it checks would silently pass
  private static void checkKeywords(JsonNode schema, String where) {
    Iterator<String> names = schema.fieldNames();
    while (names.hasNext()) {
      String keyword = names.next();
      if (!KNOWN_KEYWORDS.contains(keyword)) {
        throw new IllegalStateException("schema keyword '" + keyword + "' at " + where
            + " is not supported by CrdSchemaValidator: extend it");
      }
    }
    schema.path("properties").properties()
        .forEach(e -> checkKeywords(e.getValue(), where + "/" + e.getKey()));
    for (String nested : List.of("items", "additionalProperties")) {
      if (schema.path(nested).isObject()) {
        checkKeywords(schema.get(nested), where + "/" + nested);
      }
    }
    for (JsonNode branch : schema.path("anyOf")) {
      checkKeywords(branch, where + "/anyOf");
    }
  }

  /** The CRDs this validator knows, one per kind. */
  public Collection<Crd> crds() {
    return crds.values();
  }

  /** The CRD of a kubeflow.org/v1 {@code kind}, e.g. {@code "TFJob"}, or {@code "TrainJob"}. */
  public Crd crd(String kind) {
    Crd crd = crds.get(kind);
    if (crd == null) {
      throw new IllegalArgumentException("unknown kind " + kind + "; known: " + KINDS);
    }
    return crd;
  }

  // ---- the three checks ---------------------------------------------------------------------

  /**
   * What the API server would reject when this manifest is created: for kubeflow.org/v1 kinds the
   * CRD's structural schema plus {@code metadata}; for the other supported kinds their own checks.
   * An unsupported apiVersion/kind is a violation.
   */
  public List<String> validate(Map<String, ?> manifest) {
    return validate(toTree(manifest));
  }

  /** See {@link #validate(Map)}. */
  public List<String> validate(JsonNode manifest) {
    List<String> out = new ArrayList<>();
    if (!manifest.isObject()) {
      out.add(": a manifest must be an object, got " + describe(manifest));
      return out;
    }
    String apiVersion = manifest.path("apiVersion").asText("");
    String kind = manifest.path("kind").asText("");
    if (apiVersion.isEmpty()) {
      out.add("apiVersion: required field is missing");
    }
    if (kind.isEmpty()) {
      out.add("kind: required field is missing");
    }
    if (!out.isEmpty()) {
      return out;
    }
    if (apiVersion.equals(KUBEFLOW_API_VERSION) || apiVersion.equals(TRAINER_API_VERSION)
        || apiVersion.equals(KSERVE_API_VERSION)) {
      Crd crd = crds.get(kind);
      if (crd == null || !crd.apiVersion().equals(apiVersion)) {
        out.add("kind: no CRD for " + apiVersion + " kind '" + kind + "' (known: "
            + crds.keySet() + ")");
        return out;
      }
      checkObjectMeta(manifest.path("metadata"), "metadata", true, out);
      ObjectNode withoutMetadata = ((ObjectNode) manifest).deepCopy();
      withoutMetadata.remove("metadata");  // the schema says only {type: object}; checked above
      check(withoutMetadata, crd.openApiV3Schema, "", out);
      // Root rules see the whole object, metadata included (the TrainJob's name rules).
      checkRulesOn(manifest, crd.openApiV3Schema, "", out);
      return out;
    }
    switch (apiVersion + " " + kind) {
      case "batch/v1 Job" -> checkJob(manifest, out);
      case "v1 Service" -> checkService(manifest, out);
      case "apps/v1 Deployment" -> checkDeployment(manifest, out);
      case "v1 PersistentVolumeClaim" -> checkPersistentVolumeClaim(manifest, out);
      case "v1 PersistentVolume" -> checkPersistentVolume(manifest, out);
      case "v1 Secret" -> checkSecret(manifest, out);
      case "v1 ConfigMap" -> checkConfigMap(manifest, out);
      case "v1 Namespace", "v1 ServiceAccount" -> {
        checkTopLevelFields(manifest, Set.of("secrets", "imagePullSecrets",
            "automountServiceAccountToken", "spec", "status"), out);
        checkObjectMeta(manifest.path("metadata"), "metadata", true, out);
        checkName(manifest, DNS1123_LABEL, 63, "a DNS-1123 label", out);
      }
      default -> out.add("kind: CrdSchemaValidator has no checks for " + apiVersion + " " + kind
          + "; extend it rather than leave the document unchecked");
    }
    return out;
  }

  /**
   * What the training operator's validating webhook would reject (CONTRACT.md): a DNS-1035 job
   * name of at most 63 characters; in every replica spec a container with the kind's exact name
   * and an image in every container; PyTorchJob replica types Master and Worker only, with
   * {@code Master.replicas} present and 1; a TFJob not both Chief and Master. Empty for
   * documents that are not kubeflow.org/v1.
   */
  public List<String> webhookViolations(Map<String, ?> manifest) {
    return webhookViolations(toTree(manifest));
  }

  /** See {@link #webhookViolations(Map)}. */
  public List<String> webhookViolations(JsonNode manifest) {
    List<String> out = new ArrayList<>();
    String kind = manifest.path("kind").asText("");
    if (TRAINER_API_VERSION.equals(manifest.path("apiVersion").asText())
        && kind.equals("TrainJob")) {
      trainJobWebhook(manifest, out);
      return out;
    }
    if (!KUBEFLOW_API_VERSION.equals(manifest.path("apiVersion").asText())
        || !crds.containsKey(kind)) {
      return out;
    }
    JsonNode metadata = manifest.path("metadata");
    String name = metadata.path("name").isTextual() ? metadata.path("name").asText()
        : metadata.path("generateName").isTextual() ? metadata.path("generateName").asText() + "x"
        : null;
    if (name != null && (name.length() > 63 || !DNS1035_LABEL.matcher(name).matches())) {
      out.add("metadata.name: '" + name + "' is not a DNS-1035 label (lower-case letters, digits "
          + "and '-', starting with a letter, at most 63 characters)");
    }
    String mapKey = REPLICA_MAP_KEY.get(kind);
    String container = kind.equals("MPIJob") && manifest.at("/spec/mainContainer").isTextual()
        ? manifest.at("/spec/mainContainer").asText() : CONTAINER_NAME.get(kind);
    JsonNode specs = manifest.path("spec").path(mapKey);
    String specsPath = "spec." + mapKey;
    if (!specs.isObject() || specs.isEmpty()) {
      out.add(specsPath + ": at least one replica spec is required");
      return out;
    }
    specs.properties().forEach(entry -> {
      String path = specsPath + "." + entry.getKey();
      JsonNode containers = entry.getValue().path("template").path("spec").path("containers");
      boolean named = false;
      for (int i = 0; i < containers.size(); i++) {
        JsonNode c = containers.get(i);
        named |= container.equals(c.path("name").asText(null));
        if (c.path("image").asText("").isBlank()) {
          out.add(path + ".template.spec.containers[" + i + "].image: every container needs an "
              + "image");
        }
      }
      if (!named) {
        out.add(path + ".template.spec.containers: no container named '" + container
            + "' (the operator finds the training container by this exact name)");
      }
    });
    if (kind.equals("PyTorchJob")) {
      specs.fieldNames().forEachRemaining(type -> {
        if (!type.equals("Master") && !type.equals("Worker")) {
          out.add(specsPath + "." + type + ": PyTorchJob replica types are Master and Worker only");
        }
      });
      JsonNode master = specs.path("Master");
      if (master.isObject() && !(master.path("replicas").isIntegralNumber()
          && master.path("replicas").asLong() == 1)) {
        out.add(specsPath + ".Master.replicas: must be present and 1, got "
            + describe(master.path("replicas")));
      }
    }
    if (kind.equals("TFJob") && specs.has("Chief") && specs.has("Master")) {
      out.add(specsPath + ": Chief and Master cannot both be set (Master is an old alias of Chief)");
    }
    return out;
  }

  /** The shipped runtimes' replicated jobs and containers that runtimePatches may target. */
  private static final Set<String> RUNTIME_JOBS = Set.of("node", "launcher",
      "dataset-initializer", "model-initializer");
  private static final Pattern DOMAIN_PREFIXED = Pattern.compile(
      "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)+/[-A-Za-z0-9_./]+");

  /**
   * The Trainer webhook's checks of a TrainJob (CONTRACT.md (a), against the shipped runtimes,
   * whose trainer job and container are {@code node}) and the JobSet webhook's name-length rule
   * for the pods it would create ({@code <job>-<rjob>-0-<index>-abcde} at most 63 characters).
   */
  private static void trainJobWebhook(JsonNode job, List<String> out) {
    JsonNode spec = job.path("spec");
    JsonNode ref = spec.path("runtimeRef");
    String refKind = ref.path("kind").asText("ClusterTrainingRuntime");
    if (!refKind.equals("ClusterTrainingRuntime") && !refKind.equals("TrainingRuntime")
        || !ref.path("apiGroup").asText("trainer.kubeflow.org").equals("trainer.kubeflow.org")) {
      out.add("spec.runtimeRef: unsupported runtime: " + refKind + "."
          + ref.path("apiGroup").asText("trainer.kubeflow.org"));
    }
    Set<String> reserved = new java.util.TreeSet<>();
    for (JsonNode env : spec.path("trainer").path("env")) {
      if (TRAINER_RESERVED_ENV.contains(env.path("name").asText())) {
        reserved.add(env.path("name").asText());
      }
    }
    if (!reserved.isEmpty()) {
      out.add("spec.trainer.env: must not have reserved envs, invalid envs configured: "
          + reserved);
    }
    JsonNode patches = spec.path("runtimePatches");
    for (int i = 0; i < patches.size(); i++) {
      String path = "spec.runtimePatches[" + i + "]";
      String manager = patches.get(i).path("manager").asText("");
      if (!DOMAIN_PREFIXED.matcher(manager).matches()) {
        out.add(path + ".manager: '" + manager + "' is not a domain-prefixed path (acme.io/x)");
      }
      JsonNode jobs = patches.get(i).at("/trainingRuntimeSpec/template/spec/replicatedJobs");
      for (int j = 0; j < jobs.size(); j++) {
        String name = jobs.get(j).path("name").asText();
        if (!RUNTIME_JOBS.contains(name)) {
          out.add(path + ".replicatedJobs[" + j + "].name: the runtime has no job '" + name
              + "'");
        }
        JsonNode containers = jobs.get(j).at("/template/spec/template/spec/containers");
        for (JsonNode container : containers) {
          String c = container.path("name").asText();
          if (!RUNTIME_JOBS.contains(c) || c.equals("launcher")) {
            out.add(path + ".replicatedJobs[" + j + "]: the runtime has no container '" + c
                + "'");
          }
          if (!c.equals("node") && container.has("env")) {
            out.add(path + ".replicatedJobs[" + j + "]: container " + c
                + " must not have env");
          }
        }
      }
    }
    String name = job.path("metadata").path("name").asText("");
    int nodes = spec.path("trainer").path("numNodes").asInt(1);
    List<String> jobs = new ArrayList<>(List.of("node-0-" + Math.max(0, nodes - 1)));
    for (String step : List.of("dataset", "model")) {
      if (spec.path("initializer").has(step)) {
        jobs.add(step + "-initializer-0-0");
      }
    }
    for (String pod : jobs) {
      String longest = name + "-" + pod + "-abcde";
      if (longest.length() > 63) {
        out.add("metadata.name: JobSet name is too long, pod names such as '" + longest
            + "' would exceed 63 characters");
      }
    }
  }

  /**
   * Checks a core/v1 PodTemplateSpec ({@code {metadata, spec}}) against the schema the PyTorchJob
   * CRD embeds, plus the core validation its pods would get when created (container and volume
   * names, images, port names, mounts of declared volumes, requests within limits). Paths are
   * relative to the template, e.g. {@code spec.containers[0].image}.
   */
  public List<String> validatePodTemplate(Map<String, ?> template) {
    return validatePodTemplate(toTree(template));
  }

  /** See {@link #validatePodTemplate(Map)}. */
  public List<String> validatePodTemplate(JsonNode template) {
    List<String> out = new ArrayList<>();
    checkPodTemplate(template, "", out);
    return out;
  }

  /**
   * Everything wrong with one manifest: {@link #validate}, {@link #webhookViolations} and, for
   * kubeflow kinds, the pod checks of every replica's template.
   */
  public List<String> violations(Object manifest) {
    JsonNode node = toTree(manifest);
    List<String> out = new ArrayList<>(validate(node));
    out.addAll(webhookViolations(node));
    String kind = node.path("kind").asText("");
    if (KUBEFLOW_API_VERSION.equals(node.path("apiVersion").asText()) && crds.containsKey(kind)) {
      String mapKey = REPLICA_MAP_KEY.get(kind);
      node.path("spec").path(mapKey).properties().forEach(e -> {
        JsonNode template = e.getValue().path("template");
        if (template.isObject()) {
          checkPodRules(template, "spec." + mapKey + "." + e.getKey() + ".template.", out);
        }
      });
    }
    return out;
  }

  /**
   * Throws an AssertionError listing every violation of one manifest: a Map, a JsonNode, or a
   * YAML/JSON string (a multi-document string is checked like {@link #assertAllValid}).
   */
  public void assertValid(Object manifestOrYamlString) {
    if (manifestOrYamlString instanceof String yaml) {
      assertAllValid(yaml);
      return;
    }
    List<String> found = violations(manifestOrYamlString);
    if (!found.isEmpty()) {
      throw new AssertionError(describeDocument(toTree(manifestOrYamlString)) + " is invalid:\n  - "
          + String.join("\n  - ", found));
    }
  }

  /** Checks every document of a multi-document YAML string; throws listing all violations. */
  public void assertAllValid(String yaml) {
    List<String> found = validateAll(yaml);
    if (!found.isEmpty()) {
      throw new AssertionError(found.size() + " violation(s):\n  - " + String.join("\n  - ", found));
    }
  }

  /**
   * The violations of every document of a multi-document YAML string, each prefixed with the
   * document's position and identity, e.g. {@code [2] PyTorchJob mnist: spec...}. Empty documents
   * are skipped; a string without any document is a violation.
   */
  public List<String> validateAll(String yaml) {
    List<JsonNode> documents = parseDocuments(yaml);
    List<String> out = new ArrayList<>();
    if (documents.isEmpty()) {
      out.add("the YAML holds no document");
    }
    for (int i = 0; i < documents.size(); i++) {
      String prefix = "[" + (i + 1) + "] " + describeDocument(documents.get(i)) + ": ";
      violations(documents.get(i)).forEach(v -> out.add(prefix + v));
    }
    return out;
  }

  /** Parses every non-empty document of a YAML (or JSON) string. */
  public static List<JsonNode> parseDocuments(String yaml) {
    List<JsonNode> documents = new ArrayList<>();
    try (JsonParser parser = YAML_FACTORY.createParser(yaml)) {
      Iterator<JsonNode> it = YAML.readValues(parser, JsonNode.class);
      while (it.hasNext()) {
        JsonNode document = it.next();
        if (document != null && !document.isNull() && !document.isMissingNode()) {
          documents.add(document);
        }
      }
    } catch (IOException | RuntimeException e) {
      throw new AssertionError("not valid YAML: " + e.getMessage(), e);
    }
    return documents;
  }

  // ---- structural schema walk --------------------------------------------------------------

  private void check(JsonNode value, JsonNode schema, String path, List<String> out) {
    if (value.isNull()) {
      if (!schema.path("nullable").asBoolean(false)) {
        out.add(at(path) + ": null is not allowed here (omit the field instead)");
      }
      return;
    }
    if (schema.path("x-kubernetes-int-or-string").asBoolean(false)) {
      if (value.isTextual()) {
        checkString(value.asText(), schema, path, out);
      } else if (!value.isIntegralNumber()) {
        out.add(at(path) + ": expected an integer or a string, got " + describe(value));
      }
      return;
    }
    if (schema.has("anyOf") && !matchesAnyOf(value, schema.get("anyOf"), path)) {
      out.add(at(path) + ": " + describe(value) + " matches none of " + schema.get("anyOf"));
      return;
    }
    checkEnum(value, schema, path, out);
    if (!path.isEmpty()) {
      checkRulesOn(value, schema, path, out);
    }
    boolean preserveUnknown = schema.path("x-kubernetes-preserve-unknown-fields").asBoolean(false);
    String type = schema.path("type").asText("");
    switch (type) {
      case "object" -> {
        if (!value.isObject()) {
          out.add(typeError(path, "object", value));
        } else {
          checkObject(value, schema, path, preserveUnknown, out);
        }
      }
      case "array" -> {
        if (!value.isArray()) {
          out.add(typeError(path, "array", value));
        } else {
          checkArray(value, schema, path, out);
        }
      }
      case "string" -> {
        if (!value.isTextual()) {
          out.add(typeError(path, "string", value));
        } else {
          checkString(value.asText(), schema, path, out);
        }
      }
      case "integer" -> {
        if (!value.isIntegralNumber()) {
          out.add(typeError(path, "integer", value));
        } else {
          checkIntegerFormat(value.bigIntegerValue(), schema.path("format").asText(""), path, out);
          checkBounds(value.decimalValue(), schema, path, out);
        }
      }
      case "number" -> {
        if (!value.isNumber()) {
          out.add(typeError(path, "number", value));
        } else {
          checkBounds(value.decimalValue(), schema, path, out);
        }
      }
      case "boolean" -> {
        if (!value.isBoolean()) {
          out.add(typeError(path, "boolean", value));
        }
      }
      case "" -> {
        if (!preserveUnknown && !schema.has("anyOf")) {
          throw new IllegalStateException("schema without type at " + at(path));
        }
      }
      default -> throw new IllegalStateException("unknown schema type '" + type + "' at " + at(path));
    }
  }

  private static void checkRulesOn(JsonNode value, JsonNode schema, String path,
      List<String> out) {
    for (JsonNode rule : schema.path("x-kubernetes-validations")) {
      if (!CEL_RULES.get(rule.path("rule").asText()).holds(value)) {
        out.add(at(path) + ": Invalid value: " + describe(value) + ": "
            + rule.path("message").asText(rule.path("rule").asText()));
      }
    }
  }

  private void checkObject(JsonNode value, JsonNode schema, String path, boolean preserveUnknown,
      List<String> out) {
    if (schema.has("minProperties") && value.size() < schema.get("minProperties").asInt()) {
      out.add(at(path) + ": should have at least " + schema.get("minProperties").asInt()
          + " properties");
    }
    if (schema.has("maxProperties") && value.size() > schema.get("maxProperties").asInt()) {
      out.add(at(path) + ": should have at most " + schema.get("maxProperties").asInt()
          + " properties");
    }
    JsonNode properties = schema.path("properties");
    JsonNode additional = schema.path("additionalProperties");
    value.properties().forEach(field -> {
      String name = field.getKey();
      if (properties.has(name)) {
        check(field.getValue(), properties.get(name), join(path, name), out);
      } else if (additional.isObject()) {
        check(field.getValue(), additional, mapEntry(path, name), out);
      } else if (!preserveUnknown && !additional.asBoolean(false)) {
        out.add(join(path, name) + ": unknown field \"" + name + "\"");
      }
    });
    for (JsonNode required : schema.path("required")) {
      if (!value.has(required.asText())) {
        out.add(join(path, required.asText()) + ": required field is missing");
      }
    }
  }

  private void checkArray(JsonNode value, JsonNode schema, String path, List<String> out) {
    if (schema.has("maxItems") && value.size() > schema.get("maxItems").asInt()) {
      out.add(at(path) + ": Too many: " + value.size() + ": must have at most "
          + schema.get("maxItems").asInt() + " items");
    }
    if (schema.has("minItems") && value.size() < schema.get("minItems").asInt()) {
      out.add(at(path) + ": must have at least " + schema.get("minItems").asInt() + " items");
    }
    JsonNode items = schema.path("items");
    for (int i = 0; i < value.size(); i++) {
      if (items.isObject()) {
        check(value.get(i), items, path + "[" + i + "]", out);
      }
    }
    String listType = schema.path("x-kubernetes-list-type").asText("atomic");
    if (listType.equals("set")) {
      Set<JsonNode> seen = new HashSet<>();
      for (int i = 0; i < value.size(); i++) {
        if (!seen.add(value.get(i))) {
          out.add(path + "[" + i + "]: duplicate value " + value.get(i) + " in a set");
        }
      }
    } else if (listType.equals("map")) {
      Map<List<JsonNode>, Integer> seen = new HashMap<>();
      for (int i = 0; i < value.size(); i++) {
        JsonNode item = value.get(i);
        if (!item.isObject()) {
          continue;  // already a type error
        }
        List<JsonNode> key = new ArrayList<>();
        for (JsonNode keyName : schema.path("x-kubernetes-list-map-keys")) {
          JsonNode part = item.has(keyName.asText()) ? item.get(keyName.asText())
              : items.path("properties").path(keyName.asText()).path("default");
          if (part.isMissingNode()) {
            out.add(path + "[" + i + "]." + keyName.asText() + ": required as a list map key");
          }
          key.add(part);
        }
        Integer first = seen.putIfAbsent(key, i);
        if (first != null) {
          out.add(path + "[" + i + "]: duplicate entry, same " + schema.path(
              "x-kubernetes-list-map-keys") + " as " + path + "[" + first + "] " + key);
        }
      }
    }
  }

  private void checkString(String text, JsonNode schema, String path, List<String> out) {
    // The API server counts characters (runes), not UTF-16 units.
    int length = text.codePointCount(0, text.length());
    if (schema.has("maxLength") && length > schema.get("maxLength").asInt()) {
      out.add(at(path) + ": Too long: may not be more than " + schema.get("maxLength").asInt()
          + " characters, got " + length);
    }
    if (schema.has("minLength") && length < schema.get("minLength").asInt()) {
      out.add(at(path) + ": should be at least " + schema.get("minLength").asInt()
          + " characters long, got " + length);
    }
    if (schema.has("pattern")) {
      String regex = schema.get("pattern").asText();
      if (!patterns.computeIfAbsent(regex, Pattern::compile).matcher(text).find()) {
        out.add(at(path) + ": '" + text + "' does not match "
            + (regex.equals(QUANTITY_PATTERN) ? "the quantity pattern" : "the pattern " + regex));
      }
    }
    if (schema.path("format").asText("").equals("date-time")) {
      try {
        OffsetDateTime.parse(text);
      } catch (DateTimeParseException e) {
        out.add(at(path) + ": '" + text + "' is not an RFC 3339 date-time");
      }
    }
  }

  private static void checkBounds(BigDecimal value, JsonNode schema, String path,
      List<String> out) {
    if (schema.has("minimum") && value.compareTo(schema.get("minimum").decimalValue()) < 0) {
      out.add(at(path) + ": Invalid value: " + value + ": should be greater than or equal to "
          + schema.get("minimum").asText());
    }
    if (schema.has("maximum") && value.compareTo(schema.get("maximum").decimalValue()) > 0) {
      out.add(at(path) + ": Invalid value: " + value + ": should be less than or equal to "
          + schema.get("maximum").asText());
    }
  }

  private static void checkIntegerFormat(BigInteger value, String format, String path,
      List<String> out) {
    int bits = switch (format) {
      case "int32" -> 32;
      case "int64" -> 64;
      default -> 0;
    };
    if (bits > 0 && value.bitLength() >= bits) {
      out.add(at(path) + ": " + value + " does not fit in " + format);
    }
  }

  private static void checkEnum(JsonNode value, JsonNode schema, String path, List<String> out) {
    if (!schema.has("enum")) {
      return;
    }
    for (JsonNode allowed : schema.get("enum")) {
      if (allowed.equals(value)) {
        return;
      }
    }
    out.add(at(path) + ": " + describe(value) + " is not one of " + schema.get("enum"));
  }

  private boolean matchesAnyOf(JsonNode value, JsonNode branches, String path) {
    for (JsonNode branch : branches) {
      List<String> errors = new ArrayList<>();
      check(value, branch, path, errors);
      if (errors.isEmpty()) {
        return true;
      }
    }
    return false;
  }

  // ---- metadata and core kinds -------------------------------------------------------------

  private static void checkObjectMeta(JsonNode meta, String path, boolean nameRequired,
      List<String> out) {
    if (meta.isMissingNode()) {
      if (nameRequired) {
        out.add(path + ": required field is missing");
      }
      return;
    }
    if (!meta.isObject()) {
      out.add(typeError(path, "object", meta));
      return;
    }
    meta.fieldNames().forEachRemaining(field -> {
      if (!OBJECT_META_FIELDS.contains(field)) {
        out.add(path + "." + field + ": unknown field \"" + field + "\"");
      }
    });
    for (String text : List.of("name", "generateName", "namespace")) {
      if (meta.has(text) && !meta.get(text).isTextual()) {
        out.add(typeError(path + "." + text, "string", meta.get(text)));
      }
    }
    JsonNode name = meta.path("name");
    if (name.isTextual()) {
      if (name.asText().length() > 253 || !DNS1123_SUBDOMAIN.matcher(name.asText()).matches()) {
        out.add(path + ".name: '" + name.asText() + "' is not a DNS-1123 subdomain (lower-case "
            + "letters, digits, '-' and '.', starting and ending with a letter or digit)");
      }
    } else if (nameRequired && !meta.path("generateName").isTextual()) {
      out.add(path + ".name: required field is missing (or set generateName)");
    }
    JsonNode namespace = meta.path("namespace");
    if (namespace.isTextual() && (namespace.asText().length() > 63
        || !DNS1123_LABEL.matcher(namespace.asText()).matches())) {
      out.add(path + ".namespace: '" + namespace.asText() + "' is not a DNS-1123 label");
    }
    checkStringMap(meta.path("labels"), path + ".labels", true, out);
    checkStringMap(meta.path("annotations"), path + ".annotations", false, out);
    JsonNode finalizers = meta.path("finalizers");
    if (!finalizers.isMissingNode() && !(finalizers.isArray()
        && allMatch(finalizers, JsonNode::isTextual))) {
      out.add(typeError(path + ".finalizers", "array of strings", finalizers));
    }
  }

  private static void checkStringMap(JsonNode map, String path, boolean labels, List<String> out) {
    if (map.isMissingNode()) {
      return;
    }
    if (!map.isObject()) {
      out.add(typeError(path, "object of strings", map));
      return;
    }
    map.properties().forEach(e -> {
      String entry = mapEntry(path, e.getKey());
      if (!isQualifiedName(e.getKey())) {
        out.add(entry + ": '" + e.getKey() + "' is not a valid key ([prefix/]name: name at most 63 "
            + "alphanumerics, '-', '_' or '.', prefix a DNS-1123 subdomain)");
      }
      if (!e.getValue().isTextual()) {
        out.add(typeError(entry, "string", e.getValue()));
      } else if (labels) {
        String v = e.getValue().asText();
        if (!v.isEmpty() && (v.length() > 63 || !QUALIFIED_NAME.matcher(v).matches())) {
          out.add(entry + ": '" + v + "' is not a valid label value (at most 63 alphanumerics, "
              + "'-', '_' or '.', starting and ending with an alphanumeric)");
        }
      }
    });
  }

  private static boolean isQualifiedName(String key) {
    int slash = key.indexOf('/');
    String name = slash < 0 ? key : key.substring(slash + 1);
    if (slash >= 0) {
      String prefix = key.substring(0, slash);
      if (prefix.isEmpty() || prefix.length() > 253 || !DNS1123_SUBDOMAIN.matcher(prefix).matches()) {
        return false;
      }
    }
    return !name.isEmpty() && name.length() <= 63 && QUALIFIED_NAME.matcher(name).matches();
  }

  private static void checkName(JsonNode manifest, Pattern pattern, int maxLength,
      String description, List<String> out) {
    JsonNode name = manifest.path("metadata").path("name");
    if (name.isTextual() && (name.asText().length() > maxLength
        || !pattern.matcher(name.asText()).matches())) {
      out.add("metadata.name: '" + name.asText() + "' is not " + description + " of at most "
          + maxLength + " characters");
    }
  }

  private static void checkTopLevelFields(JsonNode manifest, Set<String> allowed,
      List<String> out) {
    manifest.fieldNames().forEachRemaining(field -> {
      if (!Set.of("apiVersion", "kind", "metadata").contains(field) && !allowed.contains(field)) {
        out.add(field + ": unknown field \"" + field + "\"");
      }
    });
  }

  private void checkJob(JsonNode job, List<String> out) {
    checkTopLevelFields(job, Set.of("spec", "status"), out);
    checkObjectMeta(job.path("metadata"), "metadata", true, out);
    // the Job controller copies the name into the pods' job-name label, which allows 63
    checkName(job, DNS1123_SUBDOMAIN, 63, "a DNS-1123 subdomain usable as a label value", out);
    JsonNode spec = job.path("spec");
    if (!spec.isObject()) {
      out.add(spec.isMissingNode() ? "spec: required field is missing" : typeError("spec", "object", spec));
      return;
    }
    spec.fieldNames().forEachRemaining(field -> {
      if (!JOB_SPEC_FIELDS.contains(field)) {
        out.add("spec." + field + ": unknown field \"" + field + "\"");
      }
    });
    for (String field : List.of("completions", "parallelism", "backoffLimit",
        "ttlSecondsAfterFinished", "backoffLimitPerIndex", "maxFailedIndexes")) {
      checkNonNegativeInteger(spec.path(field), "spec." + field, out);
    }
    JsonNode deadline = spec.path("activeDeadlineSeconds");
    if (!deadline.isMissingNode() && !(deadline.isIntegralNumber() && deadline.asLong() > 0)) {
      out.add("spec.activeDeadlineSeconds: must be a positive integer, got " + describe(deadline));
    }
    JsonNode mode = spec.path("completionMode");
    if (!mode.isMissingNode() && !Set.of("NonIndexed", "Indexed").contains(mode.asText(""))) {
      out.add("spec.completionMode: must be NonIndexed or Indexed, got " + describe(mode));
    }
    if (mode.asText("").equals("Indexed") && !spec.has("completions")) {
      out.add("spec.completions: required when completionMode is Indexed");
    }
    for (String flag : List.of("suspend", "manualSelector")) {
      if (spec.has(flag) && !spec.get(flag).isBoolean()) {
        out.add(typeError("spec." + flag, "boolean", spec.get(flag)));
      }
    }
    JsonNode template = spec.path("template");
    if (template.isMissingNode()) {
      out.add("spec.template: required field is missing");
      return;
    }
    checkPodTemplate(template, "spec.template.", out);
    JsonNode restart = template.path("spec").path("restartPolicy");
    if (!Set.of("OnFailure", "Never").contains(restart.asText(""))) {
      out.add("spec.template.spec.restartPolicy: a Job's pods need OnFailure or Never, got "
          + describe(restart));
    }
  }

  /**
   * A Deployment as the API server validates one: known spec fields, a selector whose labels the
   * pod template carries, a pod template by the pod schema, and the Always restart policy a
   * Deployment's pods must have.
   */
  private void checkDeployment(JsonNode deployment, List<String> out) {
    checkTopLevelFields(deployment, Set.of("spec", "status"), out);
    checkObjectMeta(deployment.path("metadata"), "metadata", true, out);
    checkName(deployment, DNS1123_SUBDOMAIN, 253, "a DNS-1123 subdomain", out);
    JsonNode spec = deployment.path("spec");
    if (!spec.isObject()) {
      out.add(spec.isMissingNode() ? "spec: required field is missing"
          : typeError("spec", "object", spec));
      return;
    }
    spec.fieldNames().forEachRemaining(field -> {
      if (!DEPLOYMENT_SPEC_FIELDS.contains(field)) {
        out.add("spec." + field + ": unknown field \"" + field + "\"");
      }
    });
    checkNonNegativeInteger(spec.path("replicas"), "spec.replicas", out);
    JsonNode matchLabels = spec.path("selector").path("matchLabels");
    if (!matchLabels.isObject() || matchLabels.isEmpty()) {
      out.add("spec.selector.matchLabels: required, and must select the pods");
    }
    JsonNode template = spec.path("template");
    if (template.isMissingNode()) {
      out.add("spec.template: required field is missing");
      return;
    }
    checkPodTemplate(template, "spec.template.", out);
    JsonNode labels = template.path("metadata").path("labels");
    matchLabels.fields().forEachRemaining(entry -> {
      if (!entry.getValue().equals(labels.path(entry.getKey()))) {
        out.add("spec.template.metadata.labels: `selector` does not match template `labels`"
            + " (" + entry.getKey() + ")");
      }
    });
    JsonNode restart = template.path("spec").path("restartPolicy");
    if (!restart.isMissingNode() && !restart.asText("").equals("Always")) {
      out.add("spec.template.spec.restartPolicy: a Deployment's pods need Always, got "
          + describe(restart));
    }
  }

  private void checkService(JsonNode service, List<String> out) {
    checkTopLevelFields(service, Set.of("spec", "status"), out);
    checkObjectMeta(service.path("metadata"), "metadata", true, out);
    checkName(service, DNS1035_LABEL, 63, "a DNS-1035 label", out);
    JsonNode spec = service.path("spec");
    JsonNode type = spec.path("type");
    if (!type.isMissingNode() && !Set.of("ClusterIP", "NodePort", "LoadBalancer", "ExternalName")
        .contains(type.asText(""))) {
      out.add("spec.type: " + describe(type) + " is not ClusterIP, NodePort, LoadBalancer or "
          + "ExternalName");
    }
    checkStringMap(spec.path("selector"), "spec.selector", true, out);
    JsonNode ports = spec.path("ports");
    for (int i = 0; i < ports.size(); i++) {
      JsonNode port = ports.get(i);
      String path = "spec.ports[" + i + "]";
      checkPortNumber(port.path("port"), path + ".port", true, out);
      if (ports.size() > 1 && !port.path("name").isTextual()) {
        out.add(path + ".name: required when a Service has more than one port");
      }
      if (port.path("name").isTextual()) {
        checkDns1123Label(port.path("name").asText(), path + ".name", out);
      }
      JsonNode target = port.path("targetPort");
      if (target.isIntegralNumber()) {
        checkPortNumber(target, path + ".targetPort", false, out);
      } else if (target.isTextual()) {
        checkPortName(target.asText(), path + ".targetPort", out);
      } else if (!target.isMissingNode()) {
        out.add(typeError(path + ".targetPort", "integer or string", target));
      }
    }
  }

  private static void checkPersistentVolumeClaim(JsonNode claim, List<String> out) {
    checkTopLevelFields(claim, Set.of("spec", "status"), out);
    checkObjectMeta(claim.path("metadata"), "metadata", true, out);
    JsonNode spec = claim.path("spec");
    checkAccessModes(spec.path("accessModes"), out);
    checkQuantity(spec.path("resources").path("requests").path("storage"),
        "spec.resources.requests.storage", true, out);
  }

  private static void checkPersistentVolume(JsonNode volume, List<String> out) {
    checkTopLevelFields(volume, Set.of("spec", "status"), out);
    checkObjectMeta(volume.path("metadata"), "metadata", true, out);
    JsonNode spec = volume.path("spec");
    checkAccessModes(spec.path("accessModes"), out);
    checkQuantity(spec.path("capacity").path("storage"), "spec.capacity.storage", true, out);
  }

  private static void checkSecret(JsonNode secret, List<String> out) {
    checkTopLevelFields(secret, Set.of("data", "stringData", "type", "immutable"), out);
    checkObjectMeta(secret.path("metadata"), "metadata", true, out);
    checkDataMap(secret.path("data"), "data", true, out);
    checkDataMap(secret.path("stringData"), "stringData", false, out);
  }

  private static void checkConfigMap(JsonNode configMap, List<String> out) {
    checkTopLevelFields(configMap, Set.of("data", "binaryData", "immutable"), out);
    checkObjectMeta(configMap.path("metadata"), "metadata", true, out);
    checkDataMap(configMap.path("data"), "data", false, out);
    checkDataMap(configMap.path("binaryData"), "binaryData", true, out);
  }

  private static void checkDataMap(JsonNode map, String path, boolean base64, List<String> out) {
    if (map.isMissingNode()) {
      return;
    }
    if (!map.isObject()) {
      out.add(typeError(path, "object of strings", map));
      return;
    }
    map.properties().forEach(e -> {
      String entry = mapEntry(path, e.getKey());
      if (!e.getValue().isTextual()) {
        out.add(typeError(entry, "string", e.getValue()));
      } else if (base64) {
        try {
          Base64.getDecoder().decode(e.getValue().asText());
        } catch (IllegalArgumentException notBase64) {
          out.add(entry + ": not base64 (put plain text under stringData)");
        }
      }
    });
  }

  private static void checkAccessModes(JsonNode modes, List<String> out) {
    if (!modes.isArray() || modes.isEmpty()) {
      out.add("spec.accessModes: at least one access mode is required");
      return;
    }
    for (int i = 0; i < modes.size(); i++) {
      if (!Set.of("ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod")
          .contains(modes.get(i).asText(""))) {
        out.add("spec.accessModes[" + i + "]: " + describe(modes.get(i))
            + " is not a known access mode");
      }
    }
  }

  // ---- pod templates -------------------------------------------------------------------------

  private void checkPodTemplate(JsonNode template, String prefix, List<String> out) {
    check(template, podTemplateSchema, prefix.isEmpty() ? "" : prefix.substring(0,
        prefix.length() - 1), out);
    if (template.isObject()) {
      checkPodRules(template, prefix, out);
    }
  }

  /** What the core API validates when a pod is created, beyond the structural schema. */
  private static void checkPodRules(JsonNode template, String prefix, List<String> out) {
    checkStringMap(template.path("metadata").path("labels"), prefix + "metadata.labels", true, out);
    checkStringMap(template.path("metadata").path("annotations"), prefix + "metadata.annotations",
        false, out);
    JsonNode spec = template.path("spec");
    if (!spec.isObject()) {
      return;  // the schema reports a missing or mistyped spec
    }
    String specPath = prefix + "spec";
    if (spec.path("containers").isArray() && spec.path("containers").isEmpty()) {
      out.add(specPath + ".containers: at least one container is required");
    }
    JsonNode restart = spec.path("restartPolicy");
    if (!restart.isMissingNode()
        && !Set.of("Always", "OnFailure", "Never").contains(restart.asText(""))) {
      out.add(specPath + ".restartPolicy: " + describe(restart)
          + " is not Always, OnFailure or Never");
    }
    Set<String> volumes = new HashSet<>();
    JsonNode volumeList = spec.path("volumes");
    for (int i = 0; i < volumeList.size(); i++) {
      String name = volumeList.get(i).path("name").asText("");
      String path = specPath + ".volumes[" + i + "].name";
      checkDns1123Label(name, path, out);
      if (!volumes.add(name)) {
        out.add(path + ": duplicate volume name '" + name + "'");
      }
    }
    Set<String> containerNames = new HashSet<>();
    for (String list : List.of("initContainers", "containers")) {
      JsonNode containers = spec.path(list);
      for (int i = 0; i < containers.size(); i++) {
        checkContainer(containers.get(i), specPath + "." + list + "[" + i + "]", volumes,
            containerNames, out);
      }
    }
  }

  private static void checkContainer(JsonNode container, String path, Set<String> volumes,
      Set<String> names, List<String> out) {
    String name = container.path("name").asText("");
    checkDns1123Label(name, path + ".name", out);
    if (!name.isEmpty() && !names.add(name)) {
      out.add(path + ".name: duplicate container name '" + name + "'");
    }
    if (container.path("image").asText("").isBlank()) {
      out.add(path + ".image: required field is missing (a pod cannot start without it)");
    }
    JsonNode ports = container.path("ports");
    Set<String> portNames = new HashSet<>();
    for (int i = 0; i < ports.size(); i++) {
      String portPath = path + ".ports[" + i + "]";
      checkPortNumber(ports.get(i).path("containerPort"), portPath + ".containerPort", true, out);
      JsonNode portName = ports.get(i).path("name");
      if (portName.isTextual()) {
        checkPortName(portName.asText(), portPath + ".name", out);
        if (!portNames.add(portName.asText())) {
          out.add(portPath + ".name: duplicate port name '" + portName.asText() + "'");
        }
      }
    }
    JsonNode env = container.path("env");
    for (int i = 0; i < env.size(); i++) {
      String envName = env.get(i).path("name").asText("");
      if (!ENV_VAR_NAME.matcher(envName).matches()) {
        out.add(path + ".env[" + i + "].name: '" + envName + "' is not a valid variable name");
      }
    }
    JsonNode mounts = container.path("volumeMounts");
    for (int i = 0; i < mounts.size(); i++) {
      String volume = mounts.get(i).path("name").asText("");
      if (!volumes.contains(volume)) {
        out.add(path + ".volumeMounts[" + i + "].name: no volume named '" + volume
            + "' in the pod spec");
      }
    }
    checkRequestsWithinLimits(container.path("resources"), path + ".resources", out);
  }

  private static void checkRequestsWithinLimits(JsonNode resources, String path,
      List<String> out) {
    JsonNode limits = resources.path("limits");
    resources.path("requests").properties().forEach(e -> {
      BigDecimal request = quantity(e.getValue());
      BigDecimal limit = quantity(limits.path(e.getKey()));
      String entry = mapEntry(path + ".requests", e.getKey());
      if (request != null && limit != null && request.compareTo(limit) > 0) {
        out.add(entry + ": request " + e.getValue().asText() + " exceeds the limit "
            + limits.path(e.getKey()).asText());
      }
      // extended resources (GPUs) cannot be overcommitted
      boolean extended = e.getKey().contains("/") && !e.getKey().contains("kubernetes.io/");
      if (extended && request != null && limit != null && request.compareTo(limit) != 0) {
        out.add(entry + ": must equal the limit for an extended resource");
      }
    });
  }

  private static void checkQuantity(JsonNode value, String path, boolean required,
      List<String> out) {
    if (value.isMissingNode()) {
      if (required) {
        out.add(path + ": required field is missing");
      }
    } else if (quantity(value) == null) {
      out.add(path + ": " + describe(value) + " is not a quantity");
    }
  }

  /** A Kubernetes quantity as a number, or null when it is not one. */
  private static BigDecimal quantity(JsonNode value) {
    if (value.isIntegralNumber()) {
      return new BigDecimal(value.bigIntegerValue());
    }
    if (!value.isTextual()) {
      return null;
    }
    var m = QUANTITY.matcher(value.asText());
    if (!m.matches()) {
      return null;
    }
    BigDecimal number = new BigDecimal(m.group(1).startsWith("+") ? m.group(1).substring(1)
        : m.group(1).endsWith(".") ? m.group(1) + "0" : m.group(1));
    String suffix = m.group(2) == null ? "" : m.group(2);
    if (suffix.startsWith("e") || suffix.startsWith("E")) {
      return number.scaleByPowerOfTen(Integer.parseInt(suffix.substring(1)));
    }
    int binary = "KMGTPE".indexOf(suffix.isEmpty() ? '-' : suffix.charAt(0));
    if (suffix.length() == 2) {
      return number.multiply(BigDecimal.valueOf(2).pow(10 * (binary + 1)));
    }
    int exponent = switch (suffix) {
      case "n" -> -9;
      case "u" -> -6;
      case "m" -> -3;
      case "" -> 0;
      case "k" -> 3;
      default -> 3 * (binary + 1);
    };
    return number.scaleByPowerOfTen(exponent);
  }

  private static void checkNonNegativeInteger(JsonNode value, String path, List<String> out) {
    if (!value.isMissingNode() && !(value.isIntegralNumber() && value.asLong() >= 0)) {
      out.add(path + ": must be an integer >= 0, got " + describe(value));
    }
  }

  private static void checkPortNumber(JsonNode port, String path, boolean required,
      List<String> out) {
    if (port.isMissingNode()) {
      if (required) {
        out.add(path + ": required field is missing");
      }
    } else if (!port.isIntegralNumber() || port.asLong() < 1 || port.asLong() > 65535) {
      out.add(path + ": " + describe(port) + " is not a port number (1-65535)");
    }
  }

  private static void checkPortName(String name, String path, List<String> out) {
    // IANA_SVC_NAME: what lets a Service's targetPort refer to the port by name
    if (name.length() > 15 || !IANA_SVC_NAME.matcher(name).matches() || name.contains("--")
        || name.chars().noneMatch(Character::isLetter)) {
      out.add(path + ": '" + name + "' is not a valid port name (at most 15 lower-case letters, "
          + "digits and single '-', with at least one letter)");
    }
  }

  private static void checkDns1123Label(String name, String path, List<String> out) {
    if (name.length() > 63 || !DNS1123_LABEL.matcher(name).matches()) {
      out.add(path + ": '" + name + "' is not a DNS-1123 label (lower-case letters, digits and "
          + "'-', at most 63 characters)");
    }
  }

  // ---- small helpers -------------------------------------------------------------------------

  private static JsonNode toTree(Object manifest) {
    Objects.requireNonNull(manifest, "manifest");
    if (manifest instanceof JsonNode node) {
      return node;
    }
    if (manifest instanceof String text) {
      List<JsonNode> documents = parseDocuments(text);
      if (documents.size() != 1) {
        throw new IllegalArgumentException("expected one YAML document, got " + documents.size()
            + "; use validateAll or assertAllValid");
      }
      return documents.get(0);
    }
    return JSON.valueToTree(manifest);
  }

  private static String describeDocument(JsonNode document) {
    return document.path("kind").asText("<no kind>") + " "
        + document.path("metadata").path("name").asText(
            document.path("metadata").path("generateName").asText("<no name>"));
  }

  private static boolean allMatch(JsonNode array, java.util.function.Predicate<JsonNode> test) {
    for (JsonNode item : array) {
      if (!test.test(item)) {
        return false;
      }
    }
    return true;
  }

  private static String typeError(String path, String expected, JsonNode value) {
    return at(path) + ": expected " + expected + ", got " + describe(value);
  }

  private static String describe(JsonNode value) {
    if (value == null || value.isMissingNode()) {
      return "nothing";
    }
    if (value.isTextual()) {
      return "string \"" + value.asText() + "\"";
    }
    if (value.isIntegralNumber()) {
      return "integer " + value;
    }
    if (value.isNumber()) {
      return "number " + value;
    }
    if (value.isBoolean()) {
      return "boolean " + value;
    }
    if (value.isNull()) {
      return "null";
    }
    return value.isArray() ? "an array" : "an object";
  }

  private static String at(String path) {
    return path.isEmpty() ? "<root>" : path;
  }

  private static String join(String path, String field) {
    return path.isEmpty() ? field : path + "." + field;
  }

  // map keys such as label names or nvidia.com/gpu are bracketed so the path stays unambiguous
  private static String mapEntry(String path, String key) {
    return SIMPLE_KEY.matcher(key).matches() ? join(path, key) : path + "[" + key + "]";
  }
}
