package dev.fairing4j.deployer.kubernetes.internal.transport;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.job.internal.Yaml;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Reads kubeconfig files and merges them like kubectl, which client-java does not do (it reads
 * only the first file of a multi-file {@code KUBECONFIG}). Errors name the file and never quote its
 * content, since a kubeconfig holds tokens and keys.
 */
public final class KubeconfigMerger {
  private static final TypeReference<LinkedHashMap<String, Object>> TREE = new TypeReference<>() {};

  // File references kubectl resolves relative to the file that contains them.
  private static final List<String> CLUSTER_PATHS = List.of("certificate-authority");
  private static final List<String> USER_PATHS =
      List.of("client-certificate", "client-key", "tokenFile");

  private KubeconfigMerger() {}

  /** Reads and merges {@code files}, which must all exist. */
  public static MergedKubeconfig merge(List<Path> files) {
    Map<String, Map<String, Object>> clusters = new LinkedHashMap<>();
    Map<String, Map<String, Object>> contexts = new LinkedHashMap<>();
    Map<String, Map<String, Object>> users = new LinkedHashMap<>();
    Optional<String> current = Optional.empty();
    for (Path file : files) {
      Map<String, Object> config = read(file);
      Path dir = file.toAbsolutePath().getParent();
      addEntries(file, config, "clusters", "cluster", clusters, dir, CLUSTER_PATHS);
      addEntries(file, config, "contexts", "context", contexts, dir, List.of());
      addEntries(file, config, "users", "user", users, dir, USER_PATHS);
      if (current.isEmpty()) {
        current = JsonTree.text(config, "current-context");
      }
    }
    return new MergedKubeconfig(files, clusters, contexts, users, current);
  }

  private static Map<String, Object> read(Path file) {
    String content;
    try {
      content = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw InvalidInputException.of("kubeconfig", "cannot read " + file + ": "
          + e.getClass().getSimpleName(), "check the path and its permissions");
    }
    if (content.isBlank()) {
      return Map.of(); // kubectl accepts an empty file as an empty config
    }
    try {
      Map<String, Object> tree = Yaml.MAPPER.readValue(content, TREE);
      return tree == null ? Map.of() : tree;
    } catch (JsonProcessingException e) {
      // Only the position: the parser's own message quotes the offending line, maybe a token.
      JsonLocation at = e.getLocation();
      String where = at == null ? "" : " (line " + at.getLineNr() + ", column "
          + at.getColumnNr() + ")";
      throw InvalidInputException.of("kubeconfig",
          "file " + file + " is not a valid kubeconfig: not a YAML mapping" + where,
          "fix the file, or check it with 'kubectl config view --kubeconfig " + file + "'");
    }
  }

  private static void addEntries(Path file, Map<String, Object> config, String listKey,
      String bodyKey, Map<String, Map<String, Object>> into, Path dir, List<String> pathKeys) {
    Object list = config.get(listKey);
    if (list == null) {
      return;
    }
    if (!(list instanceof List<?> entries)) {
      throw InvalidInputException.of("kubeconfig",
          "file " + file + ": '" + listKey + "' is not a list",
          "fix the file, or check it with 'kubectl config view --kubeconfig " + file + "'");
    }
    for (Object entry : entries) {
      if (!(entry instanceof Map<?, ?> raw) || !(raw.get("name") instanceof String name)
          || name.isBlank()) {
        throw InvalidInputException.of("kubeconfig",
            "file " + file + ": an entry of '" + listKey + "' has no name",
            "give every entry of '" + listKey + "' a name");
      }
      if (into.containsKey(name)) {
        continue; // the first file that defines a name wins, as in kubectl
      }
      @SuppressWarnings("unchecked")
      Map<String, Object> copy = JsonTree.mutableCopy((Map<String, Object>) raw);
      if (copy.get(bodyKey) instanceof Map<?, ?> body) {
        @SuppressWarnings("unchecked")
        Map<String, Object> typed = (Map<String, Object>) body;
        resolvePaths(typed, dir, pathKeys);
      } else {
        copy.put(bodyKey, new LinkedHashMap<String, Object>());
      }
      into.put(name, copy);
    }
  }

  private static void resolvePaths(Map<String, Object> body, Path dir, List<String> keys) {
    for (String key : keys) {
      if (body.get(key) instanceof String value && !value.isBlank()) {
        body.put(key, resolve(dir, value));
      }
    }
    // An exec plugin given as a relative path with a separator is relative to the file too.
    if (body.get("exec") instanceof Map<?, ?> exec && exec.get("command") instanceof String cmd
        && cmd.contains("/") && !Path.of(cmd).isAbsolute()) {
      @SuppressWarnings("unchecked")
      Map<String, Object> typed = (Map<String, Object>) exec;
      typed.put("command", resolve(dir, cmd));
    }
  }

  private static String resolve(Path dir, String value) {
    Path path = Path.of(value);
    return path.isAbsolute() || dir == null ? value : dir.resolve(path).normalize().toString();
  }

  /** The context names, for error messages. */
  static String available(MergedKubeconfig config) {
    List<String> names = new ArrayList<>(config.contexts().keySet());
    return names.isEmpty() ? "none" : String.join(", ", names);
  }
}
