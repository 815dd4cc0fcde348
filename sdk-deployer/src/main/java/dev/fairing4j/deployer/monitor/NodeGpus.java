package dev.fairing4j.deployer.monitor;

import java.util.Objects;

/**
 * The GPUs of one node: what its status says can be allocated ({@code nvidia.com/gpu} plus
 * {@code amd.com/gpu}) and what the unfinished pods scheduled to it hold.
 *
 * @param node the node name
 * @param total allocatable GPUs
 * @param allocated GPUs held by pods on it
 */
public record NodeGpus(String node, int total, int allocated) {
  /** Checks the parts. */
  public NodeGpus {
    Objects.requireNonNull(node, "node");
  }
}
