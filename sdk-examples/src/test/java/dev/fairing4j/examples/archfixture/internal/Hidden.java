package dev.fairing4j.examples.archfixture.internal;

/** A stand-in internal type for {@link dev.fairing4j.examples.ArchitectureTest}'s self-check. */
public interface Hidden {}
