package dev.fairing4j.deployer.job.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import org.junit.jupiter.api.Test;

/** The deployer's one reader of Kubernetes quantities, as the API server reads them. */
class QuantitiesTest {
  @Test
  void binaryDecimalAndPlainSpellingsOfOneSizeCompareEqual() {
    assertThat(Quantities.compare("1Gi", "1024Mi")).isZero();
    assertThat(Quantities.compare("1Gi", "1073741824")).isZero();
    assertThat(Quantities.compare("1G", "1Gi")).isNegative();
    assertThat(Quantities.compare("2Gi", "1500Mi")).isPositive();
  }

  @Test
  void milliUnitsAndExponentsReadAsNumbers() {
    assertThat(Quantities.value("500m")).hasValueSatisfying(
        v -> assertThat(v).isEqualByComparingTo("0.5"));
    assertThat(Quantities.value("1e3").map(BigDecimal::intValue)).contains(1000);
    assertThat(Quantities.value(" 4Ki ").map(BigDecimal::intValue)).contains(4096);
  }

  @Test
  void textThatIsNoQuantityIsEmptyAndSortsAfterEveryQuantity() {
    assertThat(Quantities.value("ten gigs")).isEmpty();
    assertThat(Quantities.value("")).isEmpty();
    assertThat(Quantities.value(null)).isEmpty();
    assertThat(Quantities.compare("ten gigs", "1Ei")).isPositive();
  }

  @Test
  void cpusRoundUpToWholeCoresAndDivisionRoundsUpAsTheDownwardApi() {
    assertThat(Quantities.wholeCpus("1500m")).contains(2);
    assertThat(Quantities.wholeCpus("2")).contains(2);
    assertThat(Quantities.wholeCpus("lots")).isEmpty();
    assertThat(Quantities.divideCeil(new BigDecimal("1073741825"), new BigDecimal("1048576")))
        .isEqualTo("1025");
  }
}
