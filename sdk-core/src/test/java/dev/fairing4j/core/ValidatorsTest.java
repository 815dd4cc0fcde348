package dev.fairing4j.core;

import dev.fairing4j.core.internal.Validators;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ValidatorsTest {

  @ParameterizedTest
  @ValueSource(strings = {"a", "mnist", "mnist-2", "a1-b2", "x23456789012345678901234567890123456789012345678901234567890123"})
  void dns1035AcceptsLowerCaseLabelsStartingWithALetter(String name) {
    assertThat(Validators.dns1035Label("jobName", name)).isEqualTo(name);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "Mnist|not a valid name",
      "1mnist|not a valid name",
      "mnist-|not a valid name",
      "-mnist|not a valid name",
      "mn_ist|not a valid name",
      "mn.ist|not a valid name",
      "x234567890123456789012345678901234567890123456789012345678901234|64 characters long",
  })
  void dns1035RejectsWithTheFieldAndAFix(String name, String problem) {
    assertThatThrownBy(() -> Validators.dns1035Label("jobName", name))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("jobName")
        .hasMessageContaining(problem)
        .hasMessageContaining("fix:")
        .satisfies(e -> assertThat(((InvalidInputException) e).field()).isEqualTo("jobName"));
  }

  @Test
  void invalidNameGetsASuggestedSpelling() {
    assertThatThrownBy(() -> Validators.dns1035Label("jobName", "My_Job"))
        .hasMessageContaining("e.g. 'my-job'");
  }

  @Test
  void blankAndMissingValuesAreRejected() {
    assertThatThrownBy(() -> Validators.dns1035Label("jobName", null))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("missing");
    assertThatThrownBy(() -> Validators.dns1035Label("jobName", "  "))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("blank");
  }

  @Test
  void jobNameReservesRoomForThePodSuffixAndSaysTheCap() {
    String reserve = "-worker-15";
    String fits = "a".repeat(63 - reserve.length());
    assertThat(Validators.jobName("jobName", fits, reserve.length())).isEqualTo(fits);

    assertThatThrownBy(() -> Validators.jobName("jobName", fits + "a", reserve.length()))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("the cap is 53")
        .hasMessageContaining("63 minus 10")
        .hasMessageContaining("at most 53 characters");
  }

  @ParameterizedTest
  @ValueSource(strings = {"0abc", "abc", "a-b", "9"})
  void dns1123LabelAllowsALeadingDigit(String name) {
    assertThat(Validators.dns1123Label("namespace", name)).isEqualTo(name);
  }

  @ParameterizedTest
  @ValueSource(strings = {"Kubeflow", "a_b", "a.b", "-a", "a-"})
  void dns1123LabelRejects(String name) {
    assertThatThrownBy(() -> Validators.dns1123Label("namespace", name))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("namespace");
  }

  @ParameterizedTest
  @ValueSource(strings = {"traindb-models-claim", "a.b.c", "0.registry-creds", "x"})
  void dns1123SubdomainAccepts(String name) {
    assertThat(Validators.dns1123Subdomain("claimName", name)).isEqualTo(name);
  }

  @ParameterizedTest
  @ValueSource(strings = {"a..b", ".a", "a.", "A.b", "a_b", "a/b"})
  void dns1123SubdomainRejects(String name) {
    assertThatThrownBy(() -> Validators.dns1123Subdomain("claimName", name))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("claimName")
        .hasMessageContaining("DNS-1123 subdomain");
  }

  @Test
  void dns1123SubdomainHasA253Limit() {
    String longName = ("a".repeat(60) + ".").repeat(4) + "b".repeat(20);
    assertThat(longName.length()).isGreaterThan(253);
    assertThatThrownBy(() -> Validators.dns1123Subdomain("claimName", longName))
        .hasMessageContaining("253");
  }

  @ParameterizedTest
  @ValueSource(strings = {"1", "500m", "0.5", "2", "4Gi", "4G", "512Mi", "1e3", "1E3", "100k",
      ".5", "1.", "0", "10Ti", "3Ei", "+1"})
  void quantityAcceptsWhatTheApiServerAccepts(String quantity) {
    assertThat(Validators.quantity("memory", quantity)).isEqualTo(quantity);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "4Gx|'4Gi'",
      "4GB|'4Gi'",
      "4gi|'4Gi'",
      "4 Gi|'4Gi'",
      "2cores|e.g. '500m'",
      "abc|e.g. '500m'",
      "1.2.3|e.g. '500m'",
      "4Ki5|e.g. '500m'",
  })
  void quantityRejectsWithTheLikelyIntendedSpelling(String quantity, String hint) {
    assertThatThrownBy(() -> Validators.quantity("memory", quantity))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("memory")
        .hasMessageContaining("not a Kubernetes quantity")
        .hasMessageContaining(hint);
  }

  @Test
  void negativeQuantitiesAreRejectedButMinusZeroIsNot() {
    assertThatThrownBy(() -> Validators.quantity("cpu", "-1"))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("negative");
    assertThat(Validators.quantity("cpu", "-0")).isEqualTo("-0");
  }

  @Test
  void atLeastNamesTheMinimum() {
    assertThat(Validators.atLeast("workers", 0, 0)).isZero();
    assertThatThrownBy(() -> Validators.atLeast("workers", -1, 0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("workers")
        .hasMessageContaining("at least 0");
  }
}
