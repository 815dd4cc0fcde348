package dev.fairing4j.examples.archfixture.rooms.kind.internal;

import dev.fairing4j.examples.archfixture.rooms.front.Front;
import dev.fairing4j.examples.archfixture.rooms.kind.internal.parts.Part;

/** The planted violation: the kind room's machinery calls up into the front room. */
public final class KindMachinery {
  private KindMachinery() {}

  /** A suffix. */
  public static String suffix() {
    return "-kind";
  }

  /** The loop inside the machinery: this package -> parts -> this package. */
  public static String parts() {
    return Part.whole();
  }

  /** The loop: kind -> front, while front -> kind. */
  public static int length() {
    return Front.name().length();
  }
}
