package dev.fairing4j.deployer.local.internal.plan;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.deployer.local.Manifests;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Cluster addresses in manifest values become local ones; everything else stays as written. */
class HostRewriterTest {
  private final JobPlan plan = ManifestReader.read(Manifests.indexedJob("mnist", 11,
      List.of("python", "t.py")));
  private final JobPorts ports = JobPorts.allocate(plan);
  private final HostRewriter rewriter = new HostRewriter(plan, ports);
  private final int port0 = ports.local("mnist-0", 29500).orElseThrow();
  private final int port10 = ports.local("mnist-10", 29500).orElseThrow();

  @Test
  void rewritesHostsWithTheirDomainsAndPorts() {
    assertThat(rewriter.rewrite("mnist-0.mnist.default.svc.cluster.local:29500"))
        .isEqualTo("127.0.0.1:" + port0);
    assertThat(rewriter.rewrite("tcp://mnist-10:29500")).isEqualTo("tcp://127.0.0.1:" + port10);
    assertThat(rewriter.rewrite("mnist-0,mnist-1.mnist")).isEqualTo("127.0.0.1,127.0.0.1");
    assertThat(rewriter.rewrite("MASTER_PORT", "29500")).isEqualTo(String.valueOf(port0));
  }

  @Test
  void leavesPathsOtherNamesAndOtherPortsAlone() {
    assertThat(rewriter.rewrite("/models/mnist-0/ckpt.pt")).isEqualTo("/models/mnist-0/ckpt.pt");
    assertThat(rewriter.rewrite("mnist-00")).isEqualTo("mnist-00");
    assertThat(rewriter.rewrite("other-0:29500")).isEqualTo("other-0:29500");
    assertThat(rewriter.rewrite("EPOCHS", "29500")).isEqualTo("29500");
    assertThat(rewriter.rewrite("mnist-0:1234")).isEqualTo("127.0.0.1:1234");
  }
}
