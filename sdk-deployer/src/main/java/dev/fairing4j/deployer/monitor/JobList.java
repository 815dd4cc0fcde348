package dev.fairing4j.deployer.monitor;

import dev.fairing4j.core.Displayable;
import dev.fairing4j.core.internal.KernelBridge;
import dev.fairing4j.core.internal.TextTable;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The training jobs of a namespace (PyTorchJob, TFJob and the SDK's batch Jobs), as read at
 * {@code readAt}; prints as a NAME STATUS TRAINER AGE NODE table.
 *
 * @param jobs the jobs, by name
 * @param readAt when they were read (ages are relative to it)
 */
public record JobList(List<JobSummary> jobs, Instant readAt) implements Displayable {
  static {
    KernelBridge.install();
  }

  private static final List<String> HEADERS = List.of("NAME", "STATUS", "TRAINER", "AGE",
      "NODE");

  /** Copies the list. */
  public JobList {
    jobs = List.copyOf(jobs);
    Objects.requireNonNull(readAt, "readAt");
  }

  private List<List<String>> rows() {
    return jobs.stream().map(j -> List.of(j.name(), j.status().toString(), j.trainer(),
        j.age(readAt), j.node().orElse("N/A"))).toList();
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
