package dev.fairing4j.builder;

/** The manifest and config format of a built image, and the layout of a tar target. */
public enum ImageFormat {
  /** Docker image manifest v2 schema 2; a tar target is a {@code docker save} archive. */
  DOCKER,
  /** OCI image manifest; a tar target is an OCI image layout archive. */
  OCI
}
