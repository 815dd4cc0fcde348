package dev.fairing4j.core.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.cache.internal.CacheLock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CachesTest {
  @TempDir
  Path root;

  @Test
  void listShowsEachCacheWithSizeEntriesAndLimitAndOtherDirectoriesWithout()
      throws IOException {
    entry(Caches.GIT_TREES, "abc", 1000, Duration.ofDays(1));
    entry(Caches.GIT_TREES, "def", 24, Duration.ofDays(1));
    layer(Caches.JIB, "sha256-1", 4096, Duration.ofDays(1));
    Files.createDirectories(root.resolve("k8s/bin"));
    Files.write(root.resolve("k8s/bin/etcd"), new byte[10]);

    CacheReport report = Caches.at(root).list();

    assertThat(report.cache(Caches.GIT_TREES).orElseThrow())
        .returns(1024L, CacheUsage::bytes).returns(2, CacheUsage::entries);
    assertThat(report.cache(Caches.JIB).orElseThrow().entries()).isEqualTo(1);
    assertThat(report.cache("k8s").orElseThrow().limit()).isEmpty();
    assertThat(report.totalBytes()).isEqualTo(1024 + 4096 + 10);
    assertThat(report.toText()).contains("git-trees", "1.0 KiB", "1.0 GiB, 30 days", "total");
    assertThat(report.removedEntries()).isZero();
  }

  @Test
  void pruneRemovesEntriesUnusedForLongerThanTheAgeLimitAndKeepsTheRest() throws IOException {
    Path old = entry(Caches.GIT_TREES, "old", 10, Duration.ofDays(40));
    Path recent = entry(Caches.GIT_TREES, "recent", 10, Duration.ofDays(3));

    CacheReport report = Caches.at(root).prune();

    assertThat(old).doesNotExist();
    assertThat(recent).exists();
    assertThat(report.removedEntries()).isEqualTo(1);
    assertThat(report.removedBytes()).isEqualTo(10);
    assertThat(root.resolve(Caches.GIT_TREES)).isDirectoryNotContaining("glob:**.trash-*");
  }

  @Test
  void pruneToASizeRemovesTheLeastRecentlyUsedFirst() throws IOException {
    Path oldest = entry(Caches.STAGING, "a", 400, Duration.ofDays(5));
    Path middle = entry(Caches.STAGING, "b", 400, Duration.ofDays(4));
    Path newest = entry(Caches.STAGING, "c", 400, Duration.ofDays(3));

    Caches.at(root).prune(CacheLimits.defaults().withMaxBytes(Caches.STAGING, 900));

    assertThat(oldest).doesNotExist();
    assertThat(middle).exists();
    assertThat(newest).exists();
  }

  @Test
  void anEntryUsedInTheLastHourIsKeptBeyondTheLimitsAndTheReportSaysSo() throws IOException {
    Path justUsed = entry(Caches.SITE_PACKAGES, "req-1", 100, Duration.ofMinutes(5));

    CacheReport report = Caches.at(root).prune(CacheLimits.defaults()
        .withMaxBytes(Caches.SITE_PACKAGES, 0));

    assertThat(justUsed).exists();
    assertThat(report.notes()).anyMatch(n -> n.contains("kept 1 entries used in the last hour"));
  }

  @Test
  void pruneRemovesWhatDeadBuildsLeftHalfWritten() throws IOException {
    Path staging = entry(Caches.STAGING, ".staging-123", 5, Duration.ofMinutes(1));
    Path install = entry(Caches.SITE_PACKAGES, "key.tmp-9", 5, Duration.ofMinutes(1));
    Path kept = entry(Caches.STAGING, "0123abcd", 5, Duration.ofDays(1));

    Caches.at(root).prune();

    assertThat(staging).doesNotExist();
    assertThat(install).doesNotExist();
    assertThat(kept).exists();
  }

  @Test
  void cleanRemovesEveryEntryNoBuildUsesEvenReadOnlyTrees() throws IOException {
    Path tree = entry(Caches.GIT_TREES, "abc", 10, Duration.ZERO);
    tree.toFile().setWritable(false);
    layer(Caches.JIB, "sha256-1", 10, Duration.ZERO);

    CacheReport report = Caches.at(root).clean();

    assertThat(tree).doesNotExist();
    assertThat(report.cache(Caches.JIB).orElseThrow().entries()).isZero();
    assertThat(report.removedEntries()).isEqualTo(2);
  }

  @Test
  void whileABuildHoldsTheCachesNothingIsRemovedAndTheReportSaysWhy() throws IOException {
    Path tree = entry(Caches.GIT_TREES, "abc", 10, Duration.ofDays(90));
    CacheReport report;
    try (CacheLock build = CacheLock.shared(root)) {
      report = Caches.at(root).waitingForBuilds(Duration.ofMillis(200)).clean();
    }
    assertThat(tree).exists();
    assertThat(report.notes()).anyMatch(n -> n.contains("a build is using the caches"));

    assertThat(Caches.at(root).clean().removedEntries()).isEqualTo(1);
  }

  @Test
  void buildsPruneAtMostOnceAnHourWhateverProcessPrunedLast() throws IOException {
    Path first = entry(Caches.GIT_TREES, "first", 10, Duration.ofDays(90));
    Caches.at(root).pruneIfDue();
    assertThat(first).doesNotExist();
    assertThat(root.resolve(".pruned")).exists();

    Path second = entry(Caches.GIT_TREES, "second", 10, Duration.ofDays(90));
    Caches.at(root).pruneIfDue();
    assertThat(second).as("pruned minutes ago: not due").exists();

    age(root.resolve(".pruned"), Duration.ofMinutes(61));
    Caches.at(root).pruneIfDue();
    assertThat(second).doesNotExist();
  }

  @Test
  void aRuntimeVariantsLimitsAreWhatItsBuildsPruneTo() throws IOException {
    Path week = entry(Caches.GIT_TREES, "week", 10, Duration.ofDays(7));
    CacheLimits day = CacheLimits.defaults().withMaxAge(Caches.GIT_TREES, Duration.ofDays(1));

    assertThat(CacheLimits.defaults().of(Caches.GIT_TREES).orElseThrow().maxAge())
        .as("the defaults would keep it").isGreaterThan(Duration.ofDays(7));

    Caches.at(root).pruneIfDue(day);

    assertThat(week).doesNotExist();

    dev.fairing4j.core.FairingRuntime shared = dev.fairing4j.core.FairingRuntime.shared();
    assertThat(shared.withCacheLimits(day).cacheLimits()).isSameAs(day);
    assertThat(shared.cacheLimits().of(Caches.GIT_TREES).orElseThrow().maxAge())
        .isEqualTo(Duration.ofDays(30));
  }

  @Test
  void limitsNameTheFieldAndTheFix() {
    assertThatThrownBy(() -> CacheLimits.defaults().withMaxBytes("jibs", 1))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("'jibs' is not one of fairing4j's caches")
        .hasMessageContaining("jib, jib-application-layers");
    assertThatThrownBy(() -> CacheLimits.parseBytes("fairing4j.cache.jib.maxBytes", "2 tb"))
        .hasMessageContaining("fairing4j.cache.jib.maxBytes").hasMessageContaining("e.g. 2g");
    assertThat(CacheLimits.parseBytes("x", "2g")).isEqualTo(2L << 30);
    assertThat(CacheLimits.parseAge("x", "14d")).isEqualTo(Duration.ofDays(14));
    assertThat(CacheLimits.parseAge("x", "PT12H")).isEqualTo(Duration.ofHours(12));
    assertThat(List.of(Duration.ofDays(1), Duration.ofDays(30), Duration.ofHours(12),
        Duration.ofMinutes(1))).map(CacheReport::age)
        .containsExactly("1 day", "30 days", "12 h", "1 min");
  }

  @Test
  void systemPropertiesChangeTheDefaults() {
    System.setProperty("fairing4j.cache.git-trees.maxBytes", "5m");
    System.setProperty("fairing4j.cache.git-trees.maxAge", "7d");
    try {
      assertThat(CacheLimits.defaults().of(Caches.GIT_TREES).orElseThrow())
          .isEqualTo(new CacheLimits.Limit(5L << 20, Duration.ofDays(7)));
    } finally {
      System.clearProperty("fairing4j.cache.git-trees.maxBytes");
      System.clearProperty("fairing4j.cache.git-trees.maxAge");
    }
  }

  private Path entry(String cache, String name, int bytes, Duration unusedFor)
      throws IOException {
    Path dir = root.resolve(cache).resolve(name);
    Files.createDirectories(dir);
    Files.write(dir.resolve("data"), new byte[bytes]);
    age(dir, unusedFor);
    return dir;
  }

  private Path layer(String cache, String digest, int bytes, Duration unusedFor)
      throws IOException {
    Path dir = root.resolve(cache).resolve("layers").resolve(digest);
    Files.createDirectories(dir);
    Files.write(dir.resolve("layer"), new byte[bytes]);
    Files.createDirectories(root.resolve(cache).resolve("images/registry/repo"));
    age(dir, unusedFor);
    return dir;
  }

  private static void age(Path path, Duration unusedFor) throws IOException {
    FileTime then = FileTime.from(Instant.now().minus(unusedFor));
    Files.setLastModifiedTime(path, then);
    Files.setAttribute(path, "lastAccessTime", then);
  }
}
