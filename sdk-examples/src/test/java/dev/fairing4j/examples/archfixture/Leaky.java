package dev.fairing4j.examples.archfixture;

import dev.fairing4j.examples.archfixture.internal.Hidden;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A public class that names an internal type in each place a signature can, so that
 * {@link dev.fairing4j.examples.ArchitectureTest} shows its rule sees every one of them.
 */
public class Leaky implements Supplier<Hidden> {
  /** A public field. */
  public Optional<Hidden> field = Optional.empty();

  /** A public constructor's parameter. */
  public Leaky(Hidden hidden) {}

  @Override
  public Hidden get() {
    return null;
  }

  /** A generic argument of a parameter. */
  protected void take(List<Hidden> hidden) {}

  // Not visible outside: allowed.
  private Hidden quiet() {
    return null;
  }
}
