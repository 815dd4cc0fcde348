package dev.fairing4j.core;

import dev.fairing4j.core.internal.KernelBridge;
import java.util.Objects;
import java.util.Optional;

/**
 * Showing values in a Jupyter notebook with a Java kernel (rapaio or JJava, found by reflection;
 * the SDK depends on neither), and plain text everywhere else.
 *
 * <p>Nothing needs calling for the common case: once the SDK is loaded, a cell whose last
 * expression is a {@link Displayable} (a job, its status, its metrics, a plot, the tables of
 * {@code TrainingClient}) shows as HTML or an image, and {@link ConsoleProgress#auto()} draws
 * one progress display that updates in place. {@link #display} shows a value in the middle of a
 * cell; outside a notebook it prints {@link Displayable#toText()} (or {@code String.valueOf}).
 */
public final class Notebook {
  private Notebook() {}

  /** True when this JVM is a notebook kernel the SDK can show values in. */
  public static boolean isActive() {
    return KernelBridge.current().isPresent();
  }

  /** The kernel this JVM runs in: {@code rapaio} or {@code jjava}; empty outside notebooks. */
  public static Optional<String> kernel() {
    return KernelBridge.current().map(KernelBridge.Kernel::name);
  }

  /**
   * Shows {@code value} now, as an output of the running cell: its richest form in a notebook,
   * its text on standard output elsewhere.
   */
  public static void display(Object value) {
    Objects.requireNonNull(value, "value");
    Optional<KernelBridge.Kernel> kernel = KernelBridge.current();
    if (kernel.isPresent()) {
      kernel.get().display(value);
    } else {
      System.out.println(value instanceof Displayable displayable ? displayable.toText()
          : String.valueOf(value));
    }
  }
}
