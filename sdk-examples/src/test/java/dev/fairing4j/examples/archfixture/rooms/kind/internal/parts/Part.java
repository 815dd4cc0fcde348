package dev.fairing4j.examples.archfixture.rooms.kind.internal.parts;

import dev.fairing4j.examples.archfixture.rooms.kind.internal.KindMachinery;

/** The planted loop inside one room's machinery: parts -> the machinery's root -> parts. */
public final class Part {
  private Part() {}

  /** Back up to the machinery's root package. */
  public static String whole() {
    return KindMachinery.suffix();
  }
}
