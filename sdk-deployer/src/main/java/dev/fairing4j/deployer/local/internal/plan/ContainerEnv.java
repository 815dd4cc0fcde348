package dev.fairing4j.deployer.local.internal.plan;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.deployer.job.internal.Quantities;
import dev.fairing4j.deployer.local.internal.runtime.HostFacts;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Resolves a container's {@code envFrom} and {@code env} as the kubelet would: literal values with
 * {@code $(VAR)} expansion, downward-API {@code fieldRef}s and {@code resourceFieldRef}s from the
 * local pod facts, and ConfigMap or Secret keys from the objects rendered with the job (there is
 * no API server to read others from). Cluster host names in the values are made local.
 */
public final class ContainerEnv {
  private static final Pattern LABEL_REF =
      Pattern.compile("metadata\\.(labels|annotations)\\['([^']+)'\\]");

  private final JobPlan plan;
  private final HostRewriter rewriter;

  /** A resolver for the containers of {@code plan}. */
  public ContainerEnv(JobPlan plan, HostRewriter rewriter) {
    this.plan = plan;
    this.rewriter = rewriter;
  }

  /**
   * The container's own variables for one pod, in definition order.
   *
   * @param base variables already defined (the image's), visible to {@code $(VAR)}
   * @throws InvalidInputException when a reference cannot be resolved locally
   */
  public Map<String, String> resolve(JobPlan.Container container, PodFacts pod,
      Map<String, String> base) {
    Map<String, String> defined = new LinkedHashMap<>(base);
    Map<String, String> env = new LinkedHashMap<>();
    for (Map<String, Object> source : container.envFrom()) {
      String prefix = Maps.string(source, "prefix").orElse("");
      Optional<Map<String, String>> values = Maps.at(source, "configMapRef").isPresent()
          ? configMap(Maps.string(source, "configMapRef", "name").orElse(""))
          : secret(Maps.string(source, "secretRef", "name").orElse(""));
      boolean optional = Maps.at(source, "configMapRef", "optional")
          .or(() -> Maps.at(source, "secretRef", "optional")).map(Boolean.TRUE::equals)
          .orElse(false);
      if (values.isEmpty() && !optional) {
        throw missing("envFrom", "the ConfigMap or Secret " + source);
      }
      values.ifPresent(v -> v.forEach((k, value) -> {
        env.put(prefix + k, value);
        defined.put(prefix + k, value);
      }));
    }
    for (Map<String, Object> entry : container.env()) {
      String name = Maps.string(entry, "name").orElse("");
      // Only literal values are addresses written for the cluster; a fieldRef such as
      // metadata.name yields the pod's own name, which must stay a name.
      Optional<String> value = Maps.at(entry, "valueFrom").isPresent()
          ? valueFrom(name, Maps.map(entry, "valueFrom"), container, pod)
          : Optional.of(rewriter.rewrite(name,
              EnvExpansion.expand(Maps.string(entry, "value").orElse(""), defined)));
      value.ifPresent(v -> {
        env.put(name, v);
        defined.put(name, v);
      });
    }
    return env;
  }

  private Optional<String> valueFrom(String name, Map<String, Object> from,
      JobPlan.Container container, PodFacts pod) {
    if (Maps.at(from, "fieldRef").isPresent()) {
      String path = Maps.string(from, "fieldRef", "fieldPath").orElse("");
      return Optional.of(field(name, path, pod));
    }
    if (Maps.at(from, "resourceFieldRef").isPresent()) {
      return Optional.of(resource(name, Maps.map(from, "resourceFieldRef"), container));
    }
    String refType = Maps.at(from, "configMapKeyRef").isPresent() ? "configMapKeyRef"
        : "secretKeyRef";
    Map<String, Object> ref = Maps.map(from, refType);
    String object = Maps.string(ref, "name").orElse("");
    String key = Maps.string(ref, "key").orElse("");
    Optional<String> value = (refType.equals("configMapKeyRef") ? configMap(object)
        : secret(object)).map(values -> values.get(key));
    if (value.isEmpty() && !Maps.at(ref, "optional").map(Boolean.TRUE::equals).orElse(false)) {
      throw missing("env " + name, "key '" + key + "' of "
          + (refType.equals("configMapKeyRef") ? "ConfigMap" : "Secret") + " '" + object + "'");
    }
    return value;
  }

  private String field(String name, String path, PodFacts pod) {
    Matcher m = LABEL_REF.matcher(path);
    if (m.matches()) {
      Map<String, String> source = m.group(1).equals("labels") ? pod.labels() : pod.annotations();
      return source.getOrDefault(m.group(2), "");
    }
    return switch (path) {
      case "metadata.name" -> pod.podName();
      case "metadata.namespace" -> pod.namespace();
      case "metadata.uid" -> pod.uid();
      case "spec.nodeName" -> pod.node();
      case "spec.serviceAccountName" -> pod.serviceAccount();
      case "status.podIP", "status.podIPs", "status.hostIP", "status.hostIPs" ->
          OperatorEnv.LOOPBACK;
      default -> throw InvalidInputException.of("env " + name,
          "fieldRef '" + path + "' has no local value",
          "use metadata.name, metadata.namespace, metadata.uid, metadata.labels['..'],"
              + " metadata.annotations['..'], spec.nodeName, status.podIP or status.hostIP");
    };
  }

  private static String resource(String name, Map<String, Object> ref,
      JobPlan.Container container) {
    String resource = Maps.string(ref, "resource").orElse("");
    String[] parts = resource.split("\\.", 2);
    boolean cpu = resource.endsWith(".cpu");
    // An unset limit reads as the node's allocatable amount, as on a cluster.
    BigDecimal value = parts.length == 2
        ? Maps.string(container.resources(), parts[0], parts[1]).flatMap(Quantities::value)
            .orElseGet(() -> cpu ? BigDecimal.valueOf(Runtime.getRuntime().availableProcessors())
                : BigDecimal.valueOf(HostFacts.memoryBytes()))
        : BigDecimal.ZERO;
    if (parts.length != 2 || !(cpu || resource.endsWith(".memory")
        || resource.endsWith(".ephemeral-storage"))) {
      throw InvalidInputException.of("env " + name,
          "resourceFieldRef '" + resource + "' is not supported locally",
          "use limits.cpu, requests.cpu, limits.memory or requests.memory");
    }
    BigDecimal divisor = Maps.string(ref, "divisor").flatMap(Quantities::value)
        .filter(d -> d.signum() > 0).orElse(BigDecimal.ONE);
    return Quantities.divideCeil(value, divisor);
  }

  private Optional<Map<String, String>> configMap(String name) {
    return object("ConfigMap", name).map(cm -> {
      Map<String, String> values = new LinkedHashMap<>();
      Maps.map(cm, "data").forEach((k, v) -> values.put(k, String.valueOf(v)));
      Maps.map(cm, "binaryData").forEach((k, v) -> values.put(k, decode(v)));
      return values;
    });
  }

  private Optional<Map<String, String>> secret(String name) {
    return object("Secret", name).map(secret -> {
      Map<String, String> values = new LinkedHashMap<>();
      Maps.map(secret, "data").forEach((k, v) -> values.put(k, decode(v)));
      Maps.map(secret, "stringData").forEach((k, v) -> values.put(k, String.valueOf(v)));
      return values;
    });
  }

  private Optional<Map<String, Object>> object(String kind, String name) {
    return plan.object(kind, name);
  }

  private static String decode(Object base64) {
    return new String(Base64.getDecoder().decode(String.valueOf(base64)), StandardCharsets.UTF_8);
  }

  private static InvalidInputException missing(String field, String what) {
    return InvalidInputException.of(field, what + " is not among the job's rendered objects,"
            + " and the local cluster has no API server to read it from",
        "render the object with the job, set the value directly, or mark the reference optional");
  }
}
