package dev.fairing4j.deployer.monitor;

import dev.fairing4j.core.Displayable;
import dev.fairing4j.core.internal.KernelBridge;
import dev.fairing4j.core.internal.TextTable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The training jobs (PyTorchJob, TFJob, XGBoostJob, TrainJob and the SDK's batch Jobs) of one
 * namespace, or of all, as read at {@code readAt}. One namespace prints as a NAME STATUS TRAINER
 * AGE NODE table with a line saying which namespace it shows; all namespaces add a NAMESPACE
 * column first, as {@code kubectl get -A} does.
 *
 * @param jobs the jobs, by namespace and name
 * @param namespace the namespace listed; empty when the list covers every namespace
 * @param readAt when they were read (ages are relative to it)
 */
public record JobList(List<JobSummary> jobs, Optional<String> namespace, Instant readAt)
    implements Displayable {
  private static final List<String> HEADERS = List.of("NAME", "STATUS", "TRAINER", "AGE",
      "NODE");

  /** Copies the list. */
  public JobList {
    KernelBridge.install();  // the first displayable value registers the renderer
    jobs = List.copyOf(jobs);
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(readAt, "readAt");
  }

  private List<String> headers() {
    if (namespace.isPresent()) {
      return HEADERS;
    }
    List<String> headers = new ArrayList<>(List.of("NAMESPACE"));
    headers.addAll(HEADERS);
    return headers;
  }

  private List<List<String>> rows() {
    return jobs.stream().map(j -> {
      List<String> row = new ArrayList<>();
      if (namespace.isEmpty()) {
        row.add(j.namespace());
      }
      row.addAll(List.of(j.name(), j.status().toString(), j.trainer(), j.age(readAt),
          j.node().orElse("N/A")));
      return row;
    }).toList();
  }

  /** Which namespace the table shows, and how to see the others. */
  private String scope() {
    return namespace.map(ns -> (jobs.isEmpty() ? "no training jobs in namespace " + ns
        : "namespace " + ns) + " (every namespace: client.listAll(); another:"
            + " client.inNamespace(\"..\").list())")
        .orElse(jobs.isEmpty() ? "no training jobs in any namespace" : "all namespaces");
  }

  /** The table as HTML, for notebooks. */
  @Override
  public String toHtml() {
    String caption = "<p>" + TextTable.escape(scope()) + "</p>";
    return jobs.isEmpty() ? caption : TextTable.html(headers(), rows()) + caption;
  }

  /** The same as {@code toString()}. */
  @Override
  public String toText() {
    return toString();
  }

  @Override
  public String toString() {
    return jobs.isEmpty() ? scope() : TextTable.text(headers(), rows()) + "\n" + scope();
  }
}
