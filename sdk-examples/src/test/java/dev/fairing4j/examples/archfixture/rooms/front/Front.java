package dev.fairing4j.examples.archfixture.rooms.front;

import dev.fairing4j.examples.archfixture.rooms.front.internal.FrontMachinery;
import dev.fairing4j.examples.archfixture.rooms.kind.internal.KindMachinery;

/**
 * A room's face that uses its own machinery (allowed) and another room's (allowed on its own),
 * planted so that {@link dev.fairing4j.examples.ArchitectureTest} shows its room-cycle rule
 * failing only on the loop back from that other room.
 */
public final class Front {
  private Front() {}

  /** Through this room's machinery and the kind room's. */
  public static String name() {
    return FrontMachinery.prefix() + KindMachinery.suffix();
  }
}
