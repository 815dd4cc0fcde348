package dev.fairing4j.core.testing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BcryptTest {

  @Test
  void blowfishTablesAreTheHexDigitsOfPi() {
    int[] words = Bcrypt.piFractionWords(18 + 1024);
    assertThat(words[0]).isEqualTo(0x243F6A88);      // P[0]
    assertThat(words[17]).isEqualTo(0x8979FB1B);     // P[17]
    assertThat(words[18]).isEqualTo(0xD1310BA6);     // S0[0]
    assertThat(words[18 + 1023]).isEqualTo(0x3AC372E6); // S3[255]
  }

  @Test
  void hashesMatchPublishedBcryptVectors() {
    // from the OpenBSD / jBCrypt test suites
    assertThat(Bcrypt.hash("", "$2a$06$DCq7YPn5Rq63x1Lad4cll."))
        .isEqualTo("$2a$06$DCq7YPn5Rq63x1Lad4cll.TV4S6ytwfsfvkgY8jIucDrjc8deX1s.");
    assertThat(Bcrypt.hash("abc", "$2a$06$If6bvum7DFjUnE9p2uDeDu"))
        .isEqualTo("$2a$06$If6bvum7DFjUnE9p2uDeDu0YHzrHM6tf.iqN8.yx.jNN1ILEf7h0i");
    assertThat(Bcrypt.hash("abcdefghijklmnopqrstuvwxyz", "$2a$08$aTsUwsyowQuzRrDqFflhge"))
        .isEqualTo("$2a$08$aTsUwsyowQuzRrDqFflhgekJ8d9/7Z3GV3UcgvzQW3J5zMyrTvlz.");
  }

  @Test
  void freshHashesUseRandomSaltsAndVerifyAgainstTheirOwnSalt() {
    String first = Bcrypt.hash("s3cret", 4);
    String second = Bcrypt.hash("s3cret", 4);
    assertThat(first).startsWith("$2a$04$").hasSize(60).isNotEqualTo(second);
    assertThat(Bcrypt.hash("s3cret", first.substring(0, 29))).isEqualTo(first);
    assertThat(Bcrypt.hash("other", first.substring(0, 29))).isNotEqualTo(first);
  }
}
