package dev.fairing4j.deployer.local.internal.runtime;


/**
 * How the supervisor's signals reach one replica, whichever way it was launched: a bubblewrap
 * sandbox, a plain process, or a podman container. The launch itself is the host command line in
 * {@code PreparedReplica}, worked out at submit; this says which processes of its group are the
 * launcher's own and what a SIGKILL of the group does not reach.
 */
public interface ReplicaLauncher {
  /**
   * Whether a group member is part of the wrapper rather than the replica's own code: such
   * members are not sent SIGTERM (a bwrap killed first would leave its child unreaped and skip
   * the replica's own shutdown); they end when the replica does.
   */
  boolean isWrapper(ProcessGroups.Stat member, long leader);

  /**
   * Called after the replica's process group was sent SIGKILL, and once a replica that was
   * stopped has ended: removes what lives outside the group. Nothing for a sandbox (its
   * processes are all in the group); a podman container runs under conmon in a session of its
   * own and outlives a killed {@code podman run}, and one stopped while it was being created is
   * left behind, neither started nor removed.
   */
  default void removeLeftovers(String podName) {}
}
