package dev.fairing4j.deployer.monitor;

import dev.fairing4j.core.Displayable;
import dev.fairing4j.core.internal.KernelBridge;
import dev.fairing4j.core.internal.TextTable;
import java.util.ArrayList;
import java.util.List;

/**
 * GPUs total and allocated per node (Arena's {@code top node}), with a total line.
 *
 * @param nodes one entry per node, by name
 */
public record TopNodes(List<NodeGpus> nodes) implements Displayable {
  private static final List<String> HEADERS = List.of("NAME", "GPU(Total)", "GPU(Allocated)");

  /** Copies the list. */
  public TopNodes {
    KernelBridge.install();  // the first displayable value registers the renderer
    nodes = List.copyOf(nodes);
  }

  /** Allocatable GPUs of all nodes. */
  public int total() {
    return nodes.stream().mapToInt(NodeGpus::total).sum();
  }

  /** GPUs held on all nodes. */
  public int allocated() {
    return nodes.stream().mapToInt(NodeGpus::allocated).sum();
  }

  private List<List<String>> rows() {
    List<List<String>> rows = new ArrayList<>(nodes.stream().map(n -> List.of(n.node(),
        String.valueOf(n.total()), String.valueOf(n.allocated()))).toList());
    rows.add(List.of("TOTAL", String.valueOf(total()), String.valueOf(allocated())));
    return rows;
  }

  /** The table as HTML, for notebooks. */
  @Override
  public String toHtml() {
    return TextTable.html(HEADERS, rows());
  }

  /** The same as {@code toString()}. */
  @Override
  public String toText() {
    return toString();
  }

  @Override
  public String toString() {
    return TextTable.text(HEADERS, rows());
  }
}
