package dev.fairing4j.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class BoundedCacheTest {
  @Test
  void aFullCacheForgetsTheLeastRecentlyUsedEntry() {
    BoundedCache<String, Integer> cache = BoundedCache.ofSize(2);
    cache.put("a", 1);
    cache.put("b", 2);
    assertThat(cache.get("a")).contains(1);  // now b is the least recently used
    cache.put("c", 3);
    assertThat(cache.get("b")).isEmpty();
    assertThat(cache.get("a")).contains(1);
    assertThat(cache.get("c")).contains(3);
    assertThat(cache.size()).isEqualTo(2);
  }

  @Test
  void anEntryOlderThanTheAgeLimitIsNotReturnedAndIsDropped() {
    AtomicLong now = new AtomicLong();
    BoundedCache<String, String> cache = BoundedCache.withClock(10, Duration.ofMinutes(30),
        now::get);
    cache.put("token", "Bearer x");
    now.addAndGet(Duration.ofMinutes(29).toNanos());
    assertThat(cache.get("token")).contains("Bearer x");
    now.addAndGet(Duration.ofMinutes(2).toNanos());
    assertThat(cache.get("token")).isEmpty();
    assertThat(cache.size()).isZero();
  }

  @Test
  void computeIfAbsentStoresOnceAndRemoveWithValueLeavesANewerValue() {
    BoundedCache<String, String> cache = BoundedCache.ofSize(4);
    assertThat(cache.computeIfAbsent("k", k -> "first")).isEqualTo("first");
    assertThat(cache.computeIfAbsent("k", k -> "second")).isEqualTo("first");
    cache.put("k", "newer");
    cache.remove("k", "first");
    assertThat(cache.get("k")).contains("newer");
    cache.remove("k", "newer");
    assertThat(cache.get("k")).isEmpty();
  }

  @Test
  void aCacheOfNoEntriesIsRefused() {
    assertThatThrownBy(() -> BoundedCache.ofSize(0))
        .hasMessageContaining("maxEntries must be at least 1");
  }
}
