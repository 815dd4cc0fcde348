/**
 * How one replica runs on this machine: the sandboxes behind one interface (bubblewrap,
 * unsandboxed, podman), process groups, the pump that writes a replica's output to its log file,
 * and what the host offers (tools, GPUs, signals). Uses no other room of the local cluster, only
 * its settings and exception.
 */
package dev.fairing4j.deployer.local.internal.runtime;
