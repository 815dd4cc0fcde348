package dev.fairing4j.deployer.kubernetes.internal.transport;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One or more kubeconfig files merged the way kubectl merges them: for clusters, contexts and
 * users, the first file that defines a name wins; {@code current-context} comes from the first
 * file that sets one. Relative file references are already resolved against the file that made
 * them.
 *
 * @param files the files read, in order
 * @param clusters cluster entries by name ({@code {name, cluster: {...}}})
 * @param contexts context entries by name
 * @param users user entries by name
 * @param currentContext the current context, if any file sets one
 */
public record MergedKubeconfig(List<Path> files, Map<String, Map<String, Object>> clusters,
    Map<String, Map<String, Object>> contexts, Map<String, Map<String, Object>> users,
    Optional<String> currentContext) {

  /** Copies the collections, keeping their order. */
  public MergedKubeconfig {
    files = List.copyOf(files);
    clusters = Collections.unmodifiableMap(new LinkedHashMap<>(clusters));
    contexts = Collections.unmodifiableMap(new LinkedHashMap<>(contexts));
    users = Collections.unmodifiableMap(new LinkedHashMap<>(users));
  }

  /** The files as one display string, separated like KUBECONFIG. */
  public String describeFiles() {
    return String.join(java.io.File.pathSeparator, files.stream().map(Path::toString).toList());
  }
}
