package dev.fairing4j.deployer.kubernetes.internal.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which failed requests are sent again, and after how long. */
class ApiRetryTest {

  @Test
  void refusalsBeforeProcessingAreRetriedWhateverTheMethod() {
    for (String method : new String[] {"GET", "POST", "PATCH", "DELETE"}) {
      assertThat(ApiRetry.temporary(method, 429)).as(method).isTrue();
      assertThat(ApiRetry.temporary(method, 503)).as(method).isTrue();
      assertThat(ApiRetry.temporary(method, new ConnectException("refused"))).isTrue();
      assertThat(ApiRetry.temporary(method, new SocketTimeoutException("connect timed out")))
          .isTrue();
    }
  }

  @Test
  void answersThatMayFollowProcessingAreNotRetriedForACreate() {
    for (int code : new int[] {500, 502, 504}) {
      assertThat(ApiRetry.temporary("GET", code)).isTrue();
      assertThat(ApiRetry.temporary("POST", code)).isFalse();
    }
    assertThat(ApiRetry.temporary("GET", new SocketTimeoutException("timeout"))).isTrue();
    assertThat(ApiRetry.temporary("POST", new SocketTimeoutException("timeout"))).isFalse();
    assertThat(ApiRetry.temporary("POST", new IOException("unexpected end of stream"))).isFalse();
  }

  @Test
  void clientErrorsAreFinal() {
    for (int code : new int[] {400, 401, 403, 404, 409, 410, 422}) {
      assertThat(ApiRetry.temporary("GET", code)).as("HTTP %d", code).isFalse();
    }
  }

  @Test
  void retryAfterIsHonouredUpToTheCapAndOtherwiseThePauseDoubles() {
    assertThat(ApiRetry.pause(1, Optional.of("1"))).isEqualTo(Duration.ofSeconds(1));
    assertThat(ApiRetry.pause(1, Optional.of("120"))).isEqualTo(ApiRetry.MAX_PAUSE);
    assertThat(ApiRetry.pause(1, Optional.of("Wed, 21 Oct 2026 07:28:00 GMT")))
        .isEqualTo(ApiRetry.FIRST_PAUSE);
    assertThat(ApiRetry.pause(1, Optional.empty())).isEqualTo(Duration.ofMillis(250));
    assertThat(ApiRetry.pause(3, Optional.empty())).isEqualTo(Duration.ofSeconds(1));
    assertThat(ApiRetry.pause(30, Optional.empty())).isEqualTo(ApiRetry.MAX_PAUSE);
  }
}
