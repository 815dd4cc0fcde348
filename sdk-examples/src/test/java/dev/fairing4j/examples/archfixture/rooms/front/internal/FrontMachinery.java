package dev.fairing4j.examples.archfixture.rooms.front.internal;

import dev.fairing4j.examples.archfixture.rooms.front.Front;

/** Machinery that calls its own room's face back: one room, no cycle between rooms. */
public final class FrontMachinery {
  private FrontMachinery() {}

  /** A prefix. */
  public static String prefix() {
    return "front";
  }

  /** Back to the face. */
  public static String again() {
    return Front.name();
  }
}
