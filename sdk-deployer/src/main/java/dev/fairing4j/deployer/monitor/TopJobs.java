package dev.fairing4j.deployer.monitor;

import dev.fairing4j.core.Displayable;
import dev.fairing4j.core.internal.KernelBridge;
import dev.fairing4j.core.internal.TextTable;
import java.util.ArrayList;
import java.util.List;

/**
 * GPUs requested and allocated per job in a namespace (Arena's {@code top job}), with a total
 * line.
 *
 * @param namespace the namespace read
 * @param jobs one entry per job, by name
 */
public record TopJobs(String namespace, List<JobGpus> jobs) implements Displayable {
  private static final List<String> HEADERS = List.of("NAME", "STATUS", "TRAINER",
      "GPU(Requested)", "GPU(Allocated)");

  /** Copies the list. */
  public TopJobs {
    KernelBridge.install();  // the first displayable value registers the renderer
    jobs = List.copyOf(jobs);
  }

  /** GPUs requested by all jobs. */
  public int requested() {
    return jobs.stream().mapToInt(JobGpus::requested).sum();
  }

  /** GPUs allocated to all jobs. */
  public int allocated() {
    return jobs.stream().mapToInt(JobGpus::allocated).sum();
  }

  private List<List<String>> rows() {
    List<List<String>> rows = new ArrayList<>(jobs.stream().map(j -> List.of(j.name(),
        j.status().toString(), j.trainer(), String.valueOf(j.requested()),
        String.valueOf(j.allocated()))).toList());
    rows.add(List.of("TOTAL", "", "", String.valueOf(requested()), String.valueOf(allocated())));
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
