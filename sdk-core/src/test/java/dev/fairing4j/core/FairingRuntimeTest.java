package dev.fairing4j.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.cache.CacheLimits;
import dev.fairing4j.core.cache.Caches;
import dev.fairing4j.core.cache.internal.CacheUse;
import dev.fairing4j.core.internal.Owner;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The owner of the SDK's machinery: parts made once on first use and closed newest first,
 * resources tracked until they end, the runtime a thread works for, a closed runtime refusing
 * work with a hint, and the shared runtime that starts again after close.
 */
class FairingRuntimeTest {
  private final List<String> closed = new ArrayList<>();

  private AutoCloseable named(String name) {
    return new AutoCloseable() {
      @Override
      public void close() {
        closed.add(name);
      }

      @Override
      public String toString() {
        return name;
      }
    };
  }

  @Test
  void aPartIsMadeOnceOnFirstUseAndClosedWithItsRuntimeNewestFirstAfterTrackedResources() {
    FairingRuntime runtime = FairingRuntime.create();
    Owner owner = runtime.call(Owner::current);
    int[] made = {0};
    AutoCloseable first = owner.part("pool", () -> {
      made[0]++;
      return named("pool");
    });
    assertThat(owner.part("pool", () -> named("another pool"))).isSameAs(first);
    owner.part("cache", () -> named("cache"));
    AutoCloseable watch = named("watch");
    owner.track(watch);

    assertThat(made[0]).isEqualTo(1);
    assertThat(runtime).hasToString("FairingRuntime(" + owner + ", 3 parts running)");
    runtime.close();

    assertThat(closed).containsExactly("watch", "cache", "pool");
    assertThat(runtime.isClosed()).isTrue();
    assertThat(runtime).hasToString("FairingRuntime(" + owner + ", closed)");
    runtime.close(); // idempotent
    assertThat(closed).hasSize(3);
  }

  @Test
  void aResourceThatEndedOnItsOwnIsNotClosedAgain() {
    FairingRuntime runtime = FairingRuntime.create();
    Owner owner = runtime.call(Owner::current);
    AutoCloseable follower = named("follower");
    owner.track(follower);
    owner.forget(follower);

    runtime.close();

    assertThat(closed).isEmpty();
  }

  @Test
  void aDroppedResourceIsForgottenWithItRatherThanKeptForTheRuntimesLife() throws Exception {
    Owner owner = FairingRuntime.create().call(Owner::current);
    owner.track(named("dropped"));
    for (int i = 0; i < 100 && owner.running() > 0; i++) {
      System.gc();
      Thread.sleep(10);
    }
    assertThat(owner.running()).isZero();
  }

  @Test
  void aClosedRuntimeRefusesWorkNamingTheWayOn() {
    FairingRuntime runtime = FairingRuntime.create();
    Owner owner = runtime.call(Owner::current);
    runtime.close();

    assertThatThrownBy(runtime::pipeline).isInstanceOf(FairingException.class)
        .hasMessageContaining("is closed")
        .hasMessageContaining("FairingRuntime.create()");
    assertThatThrownBy(() -> runtime.call(() -> 1)).isInstanceOf(FairingException.class);
    assertThatThrownBy(() -> owner.part("late", () -> named("late")))
        .isInstanceOf(FairingException.class);
    assertThatThrownBy(() -> owner.track(named("late"))).isInstanceOf(FairingException.class);
    assertThat(closed).isEmpty();
  }

  @Test
  void theSharedRuntimeStartsAgainAfterClose() {
    FairingRuntime shared = FairingRuntime.shared();
    Object key = new Object();
    Owner.shared().part(key, () -> named("first"));
    shared.close();
    AutoCloseable again = Owner.shared().part(key, () -> named("second"));

    assertThat(closed).containsExactly("first");
    assertThat(again).hasToString("second");
    assertThat(shared.isClosed()).isFalse();
    assertThat(shared.pipeline()).isNotNull();
    Owner.shared().close();
  }

  @Test
  void workRunsForItsRuntimeAndThreadsOfItsPartsToo() throws Exception {
    FairingRuntime runtime = FairingRuntime.create();
    Owner owner = runtime.call(Owner::current);
    assertThat(owner).isNotSameAs(Owner.shared());
    assertThat(Owner.current()).as("outside call()").isSameAs(Owner.shared());
    FairingRuntime other = FairingRuntime.create();
    Owner inner = runtime.call(() -> other.call(Owner::current));
    assertThat(inner).isNotSameAs(owner);
    assertThat(runtime.call(() -> {
      other.call(() -> null);
      return Owner.current();
    })).as("restored after a nested call").isSameAs(owner);

    AtomicReference<Owner> seen = new AtomicReference<>();
    Thread thread = owner.thread("fairing4j-test", () -> seen.set(Owner.current()));
    thread.start();
    thread.join();
    assertThat(seen.get()).isSameAs(owner);
    assertThat(thread.isDaemon()).isTrue();
  }

  @Test
  void aPipelineOfARuntimeRunsItsStagesAsThatRuntimesWork() {
    FairingRuntime runtime = FairingRuntime.create();
    Owner owner = runtime.call(Owner::current);
    List<Owner> seen = new ArrayList<>();
    Deployer deployer = new Deployer() {
      @Override
      public String jobName() {
        return "owned";
      }

      @Override
      public void validate(BuildContext context) {}

      @Override
      public boolean needsImage() {
        return false;
      }

      @Override
      public Deployer withPullCredentials(RegistryCredentials credentials) {
        return this;
      }

      @Override
      public String render(BuildContext context, java.util.Optional<ImageRef> image) {
        seen.add(Owner.current());
        return "kind: Job";
      }

      @Override
      public TrainingJob deploy(BuildContext context, java.util.Optional<ImageRef> image,
          ProgressListener progress) {
        seen.add(Owner.current());
        throw new IllegalStateException("deployed");
      }
    };
    Pipeline pipeline = runtime.pipeline().preprocessor(() -> {
      seen.add(Owner.current());
      return BuildContext.empty();
    }).deployer(deployer);

    assertThat(pipeline.dryRun()).isEqualTo("kind: Job");
    assertThatThrownBy(pipeline::run).hasMessage("deployed");

    assertThat(seen).hasSize(4).containsOnly(owner);
    assertThat(Owner.current()).isSameAs(Owner.shared());
    assertThat(Fairing.pipeline().preprocessor(() -> {
      seen.add(Owner.current());
      return BuildContext.empty();
    }).deployer(deployer).dryRun()).isEqualTo("kind: Job");
    assertThat(seen.subList(4, 6)).containsOnly(Owner.shared());
  }

  @Test
  void aVariantSharesItsBasesMachineryAndLifecycleAndCarriesItsOwnSetting() throws Exception {
    FairingRuntime base = FairingRuntime.create();
    CacheLimits small = CacheLimits.defaults().withMaxBytes(Caches.JIB, 1 << 20);
    FairingRuntime variant = base.withCacheLimits(small);
    Owner baseOwner = base.call(Owner::current);
    Owner variantOwner = variant.call(Owner::current);

    AutoCloseable pool = variantOwner.part("pool", () -> named("pool"));
    assertThat(baseOwner.part("pool", () -> named("second pool"))).isSameAs(pool);
    assertThat(variant.cacheLimits()).isSameAs(small);
    assertThat(base.cacheLimits().of(Caches.JIB)).isEqualTo(CacheLimits.defaults().of(Caches.JIB));
    assertThat(variantOwner.setting(CacheLimits.class)).containsSame(small);
    assertThat(baseOwner.setting(CacheLimits.class)).isEmpty();
    assertThat(variant.call(CacheUse::limits)).as("what its builds prune to").isSameAs(small);
    AtomicReference<Owner> seen = new AtomicReference<>();
    Thread thread = variantOwner.thread("fairing4j-test", () -> seen.set(Owner.current()));
    thread.start();
    thread.join();
    assertThat(seen.get()).as("a part's thread works for the variant").isSameAs(variantOwner);
    assertThat(variant.toString()).contains("with [CacheLimits[", "1 parts running");
    assertThat(FairingRuntime.shared().withCacheLimits(small).call(Owner::current).isShared())
        .isTrue();

    variant.close();

    assertThat(closed).containsExactly("pool");
    assertThat(base.isClosed()).isTrue();
    assertThatThrownBy(base::pipeline).hasMessageContaining("is closed");
  }
}
