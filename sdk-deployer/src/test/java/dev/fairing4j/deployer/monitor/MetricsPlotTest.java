package dev.fairing4j.deployer.monitor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.JobMetrics;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.MetricsPlot;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import javax.imageio.ImageIO;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

/**
 * {@code job.metrics().plot()} drawn for real by sdk-deployer's XChart renderer, found through
 * {@code META-INF/services} as a notebook finds it: a PNG that decodes, an SVG that parses, files
 * by extension. The PNG is also kept under {@code target/} to look at.
 */
class MetricsPlotTest {
  private static final Instant T0 = Instant.parse("2026-11-24T10:00:00Z");

  @TempDir Path dir;

  private static JobMetrics twoReplicasTwoEpochs() {
    List<LogLine> lines = new ArrayList<>();
    for (String replica : List.of("master-0", "worker-0")) {
      double offset = replica.equals("master-0") ? 0 : 0.03;
      for (int step = 0; step < 16; step++) {
        int epoch = step / 8 + 1;
        double loss = 2.3 * Math.exp(-step / 5.0) + 0.3 + offset;
        lines.add(new LogLine(replica, "pytorch", String.format(Locale.ROOT,
            "Train Epoch: %d [%d/2000 (%d%%)]\tloss=%.4f", epoch, step % 8 * 250,
            step % 8 * 250 / 20, loss), Optional.of(T0.plusMillis(step * 700L))));
      }
    }
    lines.add(new LogLine("master-0", "pytorch", "accuracy=0.6412",
        Optional.of(T0.plusMillis(5600))));
    lines.add(new LogLine("master-0", "pytorch", "accuracy=0.7682",
        Optional.of(T0.plusMillis(11200))));
    return JobMetrics.of("fashion-mnist", lines);
  }

  @Test
  void pngWithAPanelPerMetricShowsInANotebookAndSavesToAFile() throws Exception {
    MetricsPlot plot = twoReplicasTwoEpochs().plot();
    assertThat(plot.metrics()).containsExactly("loss", "accuracy");

    BufferedImage image = ImageIO.read(new ByteArrayInputStream(plot.png()));
    assertThat(image.getWidth()).isEqualTo(800);
    assertThat(image.getHeight()).isEqualTo(28 + 2 * 260);
    assertThat(plot.mimeBundle()).containsKeys("text/plain", "image/png");
    assertThat(Base64.getDecoder().decode(plot.mimeBundle().get("image/png")))
        .startsWith(new byte[] {(byte) 0x89, 'P', 'N', 'G'});
    assertThat(plot.toText()).isEqualTo(
        "plot of loss, accuracy for fashion-mnist (master-0, worker-0)");

    Path png = plot.save(dir.resolve("models/loss.png"));
    assertThat(ImageIO.read(png.toFile()).getHeight()).isEqualTo(548);
    Files.createDirectories(Path.of("target"));
    plot.save(Path.of("target/metrics-plot-test.png"));
  }

  @Test
  void svgParsesAndIsTheSizeAsked() throws Exception {
    Path svg = twoReplicasTwoEpochs().plot().metrics("loss").size(600, 200)
        .save(dir.resolve("loss.svg"));

    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    // The SVG names the W3C DTD; a test machine has no internet to fetch it.
    factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
    Document document = factory.newDocumentBuilder().parse(svg.toFile());
    assertThat(document.getDocumentElement().getNodeName()).isEqualTo("svg");
    // XChart draws its labels as glyph outlines; the job's title stays text.
    assertThat(Files.readString(svg)).contains(">fashion-mnist</text>").contains("<path");
    assertThat(document.getDocumentElement().getAttribute("width")).isEqualTo("600px");
  }

  @Test
  void badRequestsFailBeforeDrawing() {
    MetricsPlot plot = twoReplicasTwoEpochs().plot();

    assertThatThrownBy(() -> plot.save(dir.resolve("loss.pdf")))
        .isInstanceOfSatisfying(InvalidInputException.class, e ->
            assertThat(e.field()).isEqualTo("file"));
    assertThatThrownBy(() -> plot.save(dir)).isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> plot.metrics("top1"))
        .isInstanceOfSatisfying(InvalidInputException.class, e ->
            assertThat(e.fix()).contains("loss", "accuracy"));
    assertThatThrownBy(() -> plot.size(50, 50)).isInstanceOf(InvalidInputException.class);
    assertThatThrownBy(() -> JobMetrics.of("empty", List.of()).plot().png())
        .isInstanceOf(FairingException.class).hasMessageContaining("no metrics");
  }
}
