package dev.fairing4j.deployer.monitor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.JobPhase;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The text and HTML tables the client's results print as. */
class MonitorTablesTest {
  private static final Instant NOW = Instant.parse("2024-05-01T15:30:00Z");

  @Test
  void aJobListIsAnAlignedTableWithKubectlAges() {
    JobList list = new JobList(List.of(
        new JobSummary("mnist", "team", JobPhase.RUNNING, "PyTorchJob",
            Optional.of(Instant.parse("2024-05-01T12:00:00Z")), Optional.of("gpu-node-1")),
        new JobSummary("a-much-longer-name", "team", JobPhase.PENDING, "TFJob",
            Optional.of(Instant.parse("2024-05-01T15:29:15Z")), Optional.empty()),
        new JobSummary("old", "team", JobPhase.SUCCEEDED, "Job",
            Optional.of(Instant.parse("2024-04-20T15:30:00Z")), Optional.empty())),
        Optional.of("team"), NOW);

    assertThat(list.toString()).isEqualTo("""
        NAME                STATUS     TRAINER     AGE    NODE
        mnist               Running    PyTorchJob  3h30m  gpu-node-1
        a-much-longer-name  Pending    TFJob       45s    N/A
        old                 Succeeded  Job         11d    N/A
        namespace team (every namespace: client.listAll(); another: \
        client.inNamespace("..").list())""");
  }

  @Test
  void aListSaysWhichNamespaceItShowsAndAllNamespacesGetAColumn() {
    assertThat(new JobList(List.of(), Optional.of("default"), NOW).toString())
        .startsWith("no training jobs in namespace default (every namespace: client.listAll()");
    JobList all = new JobList(List.of(
        new JobSummary("mnist", "default", JobPhase.SUCCEEDED, "PyTorchJob", Optional.empty(),
            Optional.empty()),
        new JobSummary("mnist", "kubeflow", JobPhase.RUNNING, "PyTorchJob", Optional.empty(),
            Optional.of("vm"))), Optional.empty(), NOW);

    assertThat(all.toString()).isEqualTo("""
        NAMESPACE  NAME   STATUS     TRAINER     AGE  NODE
        default    mnist  Succeeded  PyTorchJob  ?    N/A
        kubeflow   mnist  Running    PyTorchJob  ?    vm
        all namespaces""");
  }

  @Test
  void htmlEscapesCells() {
    JobList list = new JobList(List.of(new JobSummary("<b>x</b>", "team", JobPhase.FAILED, "Job",
        Optional.empty(), Optional.empty())), Optional.of("team"), NOW);

    assertThat(list.toHtml()).contains("<td>&lt;b&gt;x&lt;/b&gt;</td>", "<td>Failed</td>",
        "<td>?</td>", "<p>namespace team (").startsWith("<table>").endsWith("</p>");
  }

  @Test
  void topTablesEndWithTotals() {
    TopNodes nodes = new TopNodes(List.of(new NodeGpus("gpu-a", 8, 6), new NodeGpus("gpu-b", 4,
        0)));

    assertThat(nodes.toString()).isEqualTo("""
        NAME   GPU(Total)  GPU(Allocated)
        gpu-a  8           6
        gpu-b  4           0
        TOTAL  12          6""");
    assertThat(new TopJobs("team", List.of()).toString()).isEqualTo("""
        NAME   STATUS  TRAINER  GPU(Requested)  GPU(Allocated)
        TOTAL                   0               0""");
  }
}
