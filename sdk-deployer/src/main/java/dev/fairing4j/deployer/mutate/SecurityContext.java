package dev.fairing4j.deployer.mutate;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.deployer.job.PodMutator;
import dev.fairing4j.deployer.job.PodTemplate;
import dev.fairing4j.deployer.job.internal.Json;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Who the training process runs as and what it may do. User, group, non-root and fsGroup go into
 * the pod's {@code securityContext} (fsGroup makes mounted volumes writable for that group); the
 * root filesystem, privilege escalation and capabilities into the training container's. Only
 * the fields set here are written; others already there stay.
 *
 * @param runAsUser the user id
 * @param runAsGroup the primary group id
 * @param nonRoot refuse to start as uid 0
 * @param fsGroup group that owns mounted volumes
 * @param readOnlyRoot mount the image read-only
 * @param allowPrivilegeEscalation allow setuid and the like
 * @param dropCapabilities drop every Linux capability
 */
public record SecurityContext(Optional<Long> runAsUser, Optional<Long> runAsGroup,
    Optional<Boolean> nonRoot, Optional<Long> fsGroup,
    Optional<Boolean> readOnlyRoot, Optional<Boolean> allowPrivilegeEscalation,
    boolean dropCapabilities) implements PodMutator {

  /** Checks the ids. */
  public SecurityContext {
    Objects.requireNonNull(runAsUser, "runAsUser").ifPresent(id -> atLeastZero("runAsUser", id));
    Objects.requireNonNull(runAsGroup, "runAsGroup")
        .ifPresent(id -> atLeastZero("runAsGroup", id));
    Objects.requireNonNull(nonRoot, "nonRoot");
    Objects.requireNonNull(fsGroup, "fsGroup").ifPresent(id -> atLeastZero("fsGroup", id));
    Objects.requireNonNull(readOnlyRoot, "readOnlyRoot");
    Objects.requireNonNull(allowPrivilegeEscalation, "allowPrivilegeEscalation");
  }

  /** Nothing set yet. */
  public static SecurityContext empty() {
    return new SecurityContext(Optional.empty(), Optional.empty(), Optional.empty(),
        Optional.empty(), Optional.empty(), Optional.empty(), false);
  }

  /** Run as this user id. */
  public SecurityContext runAsUser(long uid) {
    return new SecurityContext(Optional.of(uid), runAsGroup, nonRoot, fsGroup,
        readOnlyRoot, allowPrivilegeEscalation, dropCapabilities);
  }

  /** Run with this primary group id. */
  public SecurityContext runAsGroup(long gid) {
    return new SecurityContext(runAsUser, Optional.of(gid), nonRoot, fsGroup,
        readOnlyRoot, allowPrivilegeEscalation, dropCapabilities);
  }

  /** Refuse to start as root. */
  public SecurityContext runAsNonRoot() {
    return new SecurityContext(runAsUser, runAsGroup, Optional.of(true), fsGroup,
        readOnlyRoot, allowPrivilegeEscalation, dropCapabilities);
  }

  /** Volumes are owned by this group. */
  public SecurityContext fsGroup(long gid) {
    return new SecurityContext(runAsUser, runAsGroup, nonRoot, Optional.of(gid),
        readOnlyRoot, allowPrivilegeEscalation, dropCapabilities);
  }

  /** Mount the image's filesystem read-only (write to volumes instead). */
  public SecurityContext readOnlyRootFilesystem() {
    return new SecurityContext(runAsUser, runAsGroup, nonRoot, fsGroup, Optional.of(true),
        allowPrivilegeEscalation, dropCapabilities);
  }

  /** Forbid privilege escalation. */
  public SecurityContext noPrivilegeEscalation() {
    return new SecurityContext(runAsUser, runAsGroup, nonRoot, fsGroup,
        readOnlyRoot, Optional.of(false), dropCapabilities);
  }

  /** Drop every Linux capability. */
  public SecurityContext dropAllCapabilities() {
    return new SecurityContext(runAsUser, runAsGroup, nonRoot, fsGroup,
        readOnlyRoot, allowPrivilegeEscalation, true);
  }

  @Override
  public void apply(PodTemplate template) {
    Map<String, Object> pod = Json.map();
    runAsUser.ifPresent(v -> pod.put("runAsUser", v));
    runAsGroup.ifPresent(v -> pod.put("runAsGroup", v));
    nonRoot.ifPresent(v -> pod.put("runAsNonRoot", v));
    fsGroup.ifPresent(v -> pod.put("fsGroup", v));
    if (!pod.isEmpty()) {
      template.mergePodField("securityContext", pod);
    }
    Map<String, Object> container = Json.map();
    readOnlyRoot.ifPresent(v -> container.put("readOnlyRootFilesystem", v));
    allowPrivilegeEscalation.ifPresent(v -> container.put("allowPrivilegeEscalation", v));
    if (dropCapabilities) {
      container.put("capabilities", Map.of("drop", List.of("ALL")));
    }
    if (!container.isEmpty()) {
      template.mergeContainerField("securityContext", container);
    }
  }

  private static void atLeastZero(String field, long id) {
    if (id < 0) {
      throw InvalidInputException.of(field, id + " is negative",
          "give a numeric id of 0 or more, e.g. 1000");
    }
  }
}
