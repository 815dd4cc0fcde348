package dev.fairing4j.deployer.trainer;

import dev.fairing4j.core.Displayable;
import dev.fairing4j.core.internal.KernelBridge;
import dev.fairing4j.core.internal.TextTable;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * What a Trainer runtime's environment holds (the Kubeflow SDK's
 * {@code get_runtime_packages(runtime)}), read by running a short job on it: the Python
 * distributions its {@code python3} imports from, and the GPUs {@code nvidia-smi} sees there.
 *
 * @param runtime the runtime it was read on
 * @param packages each distribution's version by its name, sorted by name regardless of case
 * @param gpus one line per GPU as {@code nvidia-smi} gives it (index, name, memory, driver);
 *     empty where the node has no GPU or no {@code nvidia-smi}
 */
public record RuntimePackages(TrainingRuntime runtime, Map<String, String> packages,
    List<String> gpus) implements Displayable {
  /** Copies the map and the list. */
  public RuntimePackages {
    KernelBridge.install();  // the first displayable value registers the renderer
    Objects.requireNonNull(runtime, "runtime");
    TreeMap<String, String> sorted = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    sorted.putAll(packages);
    packages = Collections.unmodifiableMap(sorted);
    gpus = List.copyOf(gpus);
  }

  /**
   * The installed version of {@code name}, matched as pip matches names: regardless of case,
   * with {@code -}, {@code _} and {@code .} alike ({@code scikit_learn} finds
   * {@code scikit-learn}).
   */
  public Optional<String> version(String name) {
    String wanted = normalized(name);
    return packages.entrySet().stream().filter(e -> normalized(e.getKey()).equals(wanted))
        .map(Map.Entry::getValue).findFirst();
  }

  private static String normalized(String name) {
    return name.toLowerCase(Locale.ROOT).replaceAll("[-_.]+", "-");
  }

  private List<List<String>> rows() {
    return packages.entrySet().stream().map(e -> List.of(e.getKey(), e.getValue())).toList();
  }

  private String summary() {
    return runtime.name() + ": " + packages.size() + " Python packages; "
        + (gpus.isEmpty() ? "no GPU" : gpus.size() + (gpus.size() == 1 ? " GPU: " : " GPUs: ")
            + String.join(" | ", gpus));
  }

  /** The table as HTML, for notebooks. */
  @Override
  public String toHtml() {
    return "<p>" + TextTable.escape(summary()) + "</p>"
        + TextTable.html(List.of("PACKAGE", "VERSION"), rows());
  }

  /** The same as {@code toString()}. */
  @Override
  public String toText() {
    return toString();
  }

  /** A PACKAGE VERSION table after a line with the count and the GPUs. */
  @Override
  public String toString() {
    return summary() + "\n" + TextTable.text(List.of("PACKAGE", "VERSION"), rows());
  }
}
