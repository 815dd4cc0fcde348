package dev.fairing4j.examples.bench;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.job.internal.JsonTree;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * {@code scripts/bench.sh json}: what the SDK's Map trees ({@link JsonTree}) cost against
 * Jackson's {@link JsonNode} for what the Kubernetes backend does most, reading a list of
 * PyTorchJobs as the API server returns it (a shared watch's relist, {@code TrainingClient.list()})
 * and reading the fields the status mapping reads from each, plus the one conversion a switch
 * would add (a rendered manifest, built as a Map by the deployers and mutators, to a JsonNode).
 * Prints nanoseconds and bytes allocated per operation, each the median of five rounds.
 *
 * <pre>usage: JsonTreeBenchmark [items per list (default 20)]</pre>
 */
public final class JsonTreeBenchmark {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final TypeReference<LinkedHashMap<String, Object>> TREE =
      new TypeReference<>() {};

  private JsonTreeBenchmark() {}

  /** Prints the figures. */
  public static void main(String[] args) throws Exception {
    int items = args.length > 0 ? Integer.parseInt(args[0]) : 20;
    String yaml = Deployers.pyTorchJob("mnist").workers(2).namespace("kubeflow").asDeployer()
        .render(BuildContext.empty().withCommand(List.of("python", "/app/train.py"))
            .withEnv("EPOCHS", "3"), Optional.of(ImageRef.parse("registry.example.com/t/mnist"
            + "@sha256:" + "ab".repeat(32))));
    Map<String, Object> job = null;
    for (Object doc : new YAMLMapper().readValues(new YAMLMapper().createParser(yaml),
        Map.class).readAll()) {
      @SuppressWarnings("unchecked")
      Map<String, Object> object = (Map<String, Object>) doc;
      if ("PyTorchJob".equals(object.get("kind"))) {
        job = object;
      }
    }
    Map<String, Object> manifest = job;
    List<Object> list = new ArrayList<>();
    for (int i = 0; i < items; i++) {
      Map<String, Object> item = JsonTree.mutableCopy(manifest);
      @SuppressWarnings("unchecked")
      Map<String, Object> metadata = (Map<String, Object>) item.get("metadata");
      metadata.put("name", "mnist-" + i);
      metadata.put("uid", "6f0e" + i + "-0000-4000-8000-00000000000" + (i % 10));
      metadata.put("resourceVersion", String.valueOf(1000 + i));
      metadata.put("creationTimestamp", "2026-11-27T10:00:00Z");
      item.put("status", Map.of("conditions", List.of(
          Map.of("type", "Created", "status", "True", "reason", "PyTorchJobCreated",
              "lastTransitionTime", "2026-11-27T10:00:01Z"),
          Map.of("type", "Running", "status", "True", "reason", "PyTorchJobRunning",
              "lastTransitionTime", "2026-11-27T10:00:09Z")),
          "replicaStatuses", Map.of("Master", Map.of("active", 1), "Worker", Map.of("active",
              2)), "startTime", "2026-11-27T10:00:01Z"));
      list.add(item);
    }
    String json = MAPPER.writeValueAsString(Map.of("apiVersion", "kubeflow.org/v1",
        "kind", "PyTorchJobList", "metadata", Map.of("resourceVersion", "2000"), "items",
        list));
    System.out.printf(Locale.ROOT, "bench.json.list_bytes=%d items=%d%n", json.length(), items);

    report("parse_and_read.map_tree", () -> {
      Map<String, Object> parsed = parse(json);
      int found = 0;
      for (Map<String, Object> item : JsonTree.maps(parsed, "items")) {
        found += JsonTree.string(item, "metadata", "name").isPresent() ? 1 : 0;
        found += JsonTree.string(item, "metadata", "uid").isPresent() ? 1 : 0;
        found += JsonTree.string(item, "metadata", "resourceVersion").isPresent() ? 1 : 0;
        found += JsonTree.maps(item, "status", "conditions").size();
        found += JsonTree.integer(item, "status", "replicaStatuses", "Worker", "active")
            .orElse(0);
        found += JsonTree.instant(item, "status", "startTime").isPresent() ? 1 : 0;
      }
      return found;
    });
    report("parse_and_read.json_node", () -> {
      JsonNode parsed = readTree(json);
      int found = 0;
      for (JsonNode item : parsed.path("items")) {
        found += item.at("/metadata/name").isTextual() ? 1 : 0;
        found += item.at("/metadata/uid").isTextual() ? 1 : 0;
        found += item.at("/metadata/resourceVersion").isTextual() ? 1 : 0;
        found += item.at("/status/conditions").size();
        found += item.at("/status/replicaStatuses/Worker/active").asInt(0);
        found += parseInstant(item.at("/status/startTime").asText(null)) ? 1 : 0;
      }
      return found;
    });
    report("manifest_to_json_node", () -> {
      ObjectNode node = MAPPER.valueToTree(manifest);
      return node.size();
    });
  }

  private static boolean parseInstant(String text) {
    if (text == null) {
      return false;
    }
    java.time.Instant.parse(text);
    return true;
  }

  private static Map<String, Object> parse(String json) {
    try {
      return MAPPER.readValue(json, TREE);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static JsonNode readTree(String json) {
    try {
      return MAPPER.readTree(json);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static void report(String name, Supplier<Integer> operation) {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long sink = 0;
    for (int i = 0; i < 20_000; i++) { // warm-up: C2 compiles both paths
      sink += operation.get();
    }
    long[] nanos = new long[5];
    long[] bytes = new long[5];
    int per = 5_000;
    for (int round = 0; round < 5; round++) {
      long allocated = threads.getThreadAllocatedBytes(Thread.currentThread().getId());
      long start = System.nanoTime();
      for (int i = 0; i < per; i++) {
        sink += operation.get();
      }
      nanos[round] = (System.nanoTime() - start) / per;
      bytes[round] = (threads.getThreadAllocatedBytes(Thread.currentThread().getId())
          - allocated) / per;
    }
    java.util.Arrays.sort(nanos);
    java.util.Arrays.sort(bytes);
    System.out.printf(Locale.ROOT, "bench.json.%s: ns_per_op=%d bytes_allocated_per_op=%d"
        + " (check %d)%n", name, nanos[2], bytes[2], sink % 1000);
  }
}
