package dev.fairing4j.deployer.job.internal;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.DeployerSource;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.JvmWide;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

/**
 * The one way from a public deployer to the {@link JobKind} it renders, so that
 * {@code JobDeployer} validates, renders and submits every kind the same way while the kinds
 * keep their rendering out of their public and protected signatures.
 *
 * <p>Why a registry: the deployers live in other packages than the rendering machinery, and
 * without a named module Java grants no friend access; a protected {@code kind()} would show an
 * internal type to every subclass. So each deployer class hands this registry a reader of its
 * private kind when the class initializes (the JDK's "shared secrets" pattern, as
 * {@link ClusterBackends} does for clusters); any instance passed to {@link #of} has initialized
 * its class, so its reader is here. Typed by core's {@link DeployerSource}, not
 * {@code JobDeployer}, so that this package and the deployers' do not depend on each other.
 */
public final class DeployerKinds {
  @JvmWide(why = "the friend accessor of the public deployer classes: registered "
      + "by their class initializers",
      bound = "one entry per SDK deployer class (6), keyed by class")
  private static final Map<Class<?>, BiFunction<Object, BuildContext, JobKind>> READERS =
      new ConcurrentHashMap<>();

  private DeployerKinds() {}

  /**
   * Called once from the static initializer of a deployer class; the first registration for a
   * class wins.
   */
  public static <D extends DeployerSource> void register(Class<D> type,
      BiFunction<? super D, BuildContext, ? extends JobKind> reader) {
    READERS.putIfAbsent(type, (deployer, context) -> reader.apply(type.cast(deployer), context));
  }

  /**
   * The kind {@code deployer} renders for {@code context}.
   *
   * @throws InvalidInputException for a deployer class outside the SDK, which has no kind here
   */
  public static JobKind of(DeployerSource deployer, BuildContext context) {
    BiFunction<Object, BuildContext, JobKind> reader = READERS.get(deployer.getClass());
    if (reader == null) {
      throw InvalidInputException.of("deployer", deployer.getClass().getName()
          + " is not one of fairing4j's deployers and does not render itself",
          "use Deployers.pyTorchJob(..), tfJob(..), trainJob(..) or batchJob(..), or implement"
              + " dev.fairing4j.core.Deployer");
    }
    return reader.apply(deployer, context);
  }
}
