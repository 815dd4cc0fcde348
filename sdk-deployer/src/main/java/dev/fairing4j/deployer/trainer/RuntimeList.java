package dev.fairing4j.deployer.trainer;

import dev.fairing4j.core.Displayable;
import dev.fairing4j.core.internal.KernelBridge;
import dev.fairing4j.core.internal.TextTable;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The Trainer runtimes a TrainJob of one namespace can run on (the Kubeflow SDK's
 * {@code list_runtimes()}): the cluster's ClusterTrainingRuntimes, then the namespace's
 * TrainingRuntimes, each by name. Prints as a NAME KIND FRAMEWORK NODES GPUS IMAGE table with a
 * line saying which namespace's runtimes it shows.
 *
 * @param runtimes the runtimes, cluster-wide first, each group by name
 * @param namespace the namespace whose TrainingRuntimes are listed
 */
public record RuntimeList(List<TrainingRuntime> runtimes, String namespace)
    implements Displayable {
  private static final List<String> HEADERS = List.of("NAME", "KIND", "FRAMEWORK", "NODES",
      "GPUS", "IMAGE");

  /** Copies the list. */
  public RuntimeList {
    KernelBridge.install();  // the first displayable value registers the renderer
    runtimes = List.copyOf(runtimes);
    Objects.requireNonNull(namespace, "namespace");
  }

  /** The runtime called {@code name}: a ClusterTrainingRuntime first, as {@code .runtime(..)}. */
  public Optional<TrainingRuntime> find(String name) {
    return runtimes.stream().filter(r -> r.name().equals(name)).findFirst();
  }

  /** The runtimes' names, in the list's order. */
  public List<String> names() {
    return runtimes.stream().map(TrainingRuntime::name).toList();
  }

  private List<List<String>> rows() {
    return runtimes.stream().map(r -> List.of(r.name(), r.kind(), r.framework().orElse("-"),
        String.valueOf(r.numNodes()), String.valueOf(r.gpusPerNode()),
        r.image().orElse("(this machine)"))).toList();
  }

  private String scope() {
    return runtimes.isEmpty()
        ? "no ClusterTrainingRuntimes and no TrainingRuntimes in namespace " + namespace
            + " (install Trainer's: kubectl apply --server-side -k"
            + " \"github.com/kubeflow/trainer.git/manifests/overlays/runtimes?ref=v2.3.0\")"
        : "ClusterTrainingRuntimes, and the TrainingRuntimes of namespace " + namespace;
  }

  /** The table as HTML, for notebooks. */
  @Override
  public String toHtml() {
    String caption = "<p>" + TextTable.escape(scope()) + "</p>";
    return runtimes.isEmpty() ? caption : TextTable.html(HEADERS, rows()) + caption;
  }

  /** The same as {@code toString()}. */
  @Override
  public String toText() {
    return toString();
  }

  @Override
  public String toString() {
    return runtimes.isEmpty() ? scope() : TextTable.text(HEADERS, rows()) + "\n" + scope();
  }
}
