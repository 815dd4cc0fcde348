package dev.fairing4j.deployer.monitor;

import dev.fairing4j.core.Displayable;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.PodInfo;
import dev.fairing4j.core.internal.KernelBridge;
import dev.fairing4j.core.internal.TextTable;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One job and its instances (Arena's {@code get}): the summary line, the full status, and per
 * pod its status, node and why it is not running.
 *
 * @param summary the job as a list shows it
 * @param status its conditions, replica counts, times and pods
 * @param readAt when it was read
 */
public record JobDetails(JobSummary summary, JobStatus status, Instant readAt)
    implements Displayable {
  private static final List<String> HEADERS = List.of("INSTANCE", "STATUS", "NODE", "RESTARTS",
      "REASON");

  /** Checks the parts. */
  public JobDetails {
    KernelBridge.install();  // the first displayable value registers the renderer
    Objects.requireNonNull(summary, "summary");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(readAt, "readAt");
  }

  /** The job's pods. */
  public List<PodInfo> instances() {
    return status.pods();
  }

  private List<List<String>> rows() {
    return instances().stream().map(p -> List.of(p.name(), p.phase(), p.node().orElse("N/A"),
        String.valueOf(p.restarts()), p.reason().map(r -> r + p.message().map(m -> ": " + m)
            .orElse("")).orElse(""))).toList();
  }

  private List<String> header() {
    return List.of("Name: " + summary.name(), "Namespace: " + summary.namespace(),
        "Status: " + summary.status(), "Trainer: " + summary.trainer(),
        "Age: " + summary.age(readAt));
  }

  /** The job as HTML, for notebooks. */
  @Override
  public String toHtml() {
    StringBuilder out = new StringBuilder("<div>");
    header().forEach(h -> out.append(TextTable.escape(h)).append("<br/>"));
    out.append(TextTable.html(HEADERS, rows()));
    if (!status.warnings().isEmpty()) {
      out.append(TextTable.html(List.of("EVENTS"),
          status.warnings().stream().map(List::of).toList()));
    }
    return out.append("</div>").toString();
  }

  /** The same as {@code toString()}. */
  @Override
  public String toText() {
    return toString();
  }

  @Override
  public String toString() {
    String text = String.join("\n", header()) + "\n\n" + TextTable.text(HEADERS, rows());
    // Why a job is stuck is what a user asking for details most often wants to know.
    return status.warnings().isEmpty() ? text
        : text + "\n\nEVENTS\n" + String.join("\n", status.warnings());
  }
}
