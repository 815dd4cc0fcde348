package dev.fairing4j.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.JobMetrics;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.Notebook;
import java.util.List;
import java.util.Optional;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The bridge outside a notebook, and inside JJava as far as its API can be checked here: against
 * a stand-in with JJava's signatures (JJava is on no reachable Maven repository). rapaio, which
 * is, is checked for real by NotebookIT.
 */
class KernelBridgeTest {
  private static final JobMetrics METRICS = JobMetrics.of("mnist", List.of(
      new LogLine("master-0", "pytorch", "loss=0.5027", Optional.empty())));

  @AfterEach
  void forgetTheKernel() {
    BaseKernel.notebookKernel = null;
    KernelBridge.reset();
  }

  @Test
  void outsideANotebookThereIsNoKernelAndValuesStayText() {
    KernelBridge.reset();

    assertThat(KernelBridge.current()).isEmpty();
    assertThat(Notebook.isActive()).isFalse();
    assertThat(Notebook.kernel()).isEmpty();
  }

  @Test
  void inJJavaDisplayablesRenderAsHtmlAndDisplaysUpdateInPlace() {
    BaseKernel kernel = new BaseKernel();
    BaseKernel.notebookKernel = kernel;
    KernelBridge.reset();

    assertThat(Notebook.kernel()).contains("jjava");
    // The last expression of a cell: the kernel's renderer, with the SDK's function registered.
    DisplayData rendered = kernel.getRenderer().render(METRICS);
    assertThat(rendered.data).containsKeys("text/plain", "text/html");
    assertThat((String) rendered.data.get("text/html")).startsWith("<table>")
        .contains("<td>0.5027</td>");
    assertThat((String) rendered.data.get("text/plain")).startsWith("REPLICA");
    // A plain value keeps the kernel's own rendering.
    assertThat(kernel.getRenderer().render("text").data).containsOnlyKeys("text/plain");

    Notebook.display(METRICS);
    String id = KernelBridge.current().orElseThrow().display(METRICS);
    KernelBridge.current().orElseThrow().update(id, METRICS);

    assertThat(kernel.displayed).hasSize(2);
    assertThat(kernel.displayed.get(1).displayId).isEqualTo(id);
    assertThat(kernel.getIO().display.updates).singleElement().asString()
        .startsWith(id + " {text/plain=REPLICA");
  }
}
