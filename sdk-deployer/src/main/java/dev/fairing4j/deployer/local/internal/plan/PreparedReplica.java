package dev.fairing4j.deployer.local.internal.plan;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A replica ready to start: its host command line, start directory and exact environment, worked
 * out once at submit so that every (re)start runs the same thing and reference errors show before
 * anything runs.
 *
 * @param id the replica
 * @param command the host command line (sandbox wrapper included)
 * @param directory the host directory it starts in
 * @param env the complete environment
 * @param gpus GPUs it requests
 */
public record PreparedReplica(ReplicaId id, List<String> command, Path directory,
    Map<String, String> env, long gpus) {

  /** Copies the collections. */
  public PreparedReplica {
    command = List.copyOf(command);
    env = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(env));
  }
}
