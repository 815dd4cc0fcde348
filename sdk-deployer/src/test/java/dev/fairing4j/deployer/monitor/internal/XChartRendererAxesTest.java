package dev.fairing4j.deployer.monitor.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.core.internal.ChartRenderer;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Axes of short series: one epoch's metrics (a loss logged twice, an accuracy once) were drawn
 * as dots on the frame's edge with x ticks at the data alone ({@code 0} and {@code 94.812}).
 */
class XChartRendererAxesTest {
  @Test
  void theTimeAxisEndsAtARoundNumberPastTheLastValue() {
    assertThat(XChartRenderer.niceCeiling(94.812)).isEqualTo(100);
    assertThat(XChartRenderer.niceCeiling(11)).isEqualTo(20);
    assertThat(XChartRenderer.niceCeiling(2.1)).isEqualTo(2.5);
    assertThat(XChartRenderer.niceCeiling(0)).isEqualTo(1);
    assertThat(XChartRenderer.niceCeiling(300)).isEqualTo(500);
  }

  @Test
  void everyValueSitsInsideTheFrameEvenASingleOne() {
    double[] one = XChartRenderer.yRange(panel(0.7682));
    assertThat(one[0]).isLessThan(0.7682);
    assertThat(one[1]).isGreaterThan(0.7682);
    double[] zero = XChartRenderer.yRange(panel(0));
    assertThat(zero).containsExactly(-1, 1);
    double[] two = XChartRenderer.yRange(panel(2.3, 2.31));
    assertThat(two[0]).isLessThan(2.3);
    assertThat(two[1]).isGreaterThan(2.31);
  }

  @Test
  void aOneEpochPlotRendersAsAPng() {
    ChartRenderer.Chart chart = new ChartRenderer.Chart("onepoch", "seconds", 600, 200,
        List.of(panel(0.7682)));
    byte[] png = new XChartRenderer().render(chart, ChartRenderer.Format.PNG);
    assertThat(png).startsWith(0x89, 'P', 'N', 'G');
  }

  private static ChartRenderer.Panel panel(double... values) {
    double[] x = new double[values.length];
    for (int i = 0; i < x.length; i++) {
      x[i] = 94.812 * i;
    }
    return new ChartRenderer.Panel("metric", List.of(new ChartRenderer.Series("master-0", x,
        values)));
  }
}
