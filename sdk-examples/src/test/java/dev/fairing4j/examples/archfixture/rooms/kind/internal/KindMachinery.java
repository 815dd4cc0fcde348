package dev.fairing4j.examples.archfixture.rooms.kind.internal;

import dev.fairing4j.examples.archfixture.rooms.front.Front;

/** The planted violation: the kind room's machinery calls up into the front room. */
public final class KindMachinery {
  private KindMachinery() {}

  /** A suffix. */
  public static String suffix() {
    return "-kind";
  }

  /** The loop: kind -> front, while front -> kind. */
  public static int length() {
    return Front.name().length();
  }
}
