package dev.fairing4j.deployer.local.internal.operator;

import dev.fairing4j.deployer.local.internal.state.JobRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A job's conditions, changed by the training operator's own rules ({@code setCondition} and
 * {@code filterOutCondition}): an unchanged condition is left alone; a new one is appended after
 * removing the old one of its type; Running and Restarting replace each other; Succeeded or Failed
 * turn Running to False (it stays listed); once Failed is True nothing changes.
 */
final class ConditionList {
  private final List<JobRecord.Condition> conditions = new ArrayList<>();

  /** Sets condition {@code type}. */
  void set(String type, boolean status, String reason, String message, Instant now) {
    if (isTrue("Failed")) {
      return;
    }
    String value = status ? "True" : "False";
    Optional<JobRecord.Condition> current = find(type);
    if (current.isPresent() && current.get().status().equals(value)
        && current.get().reason().equals(reason)) {
      return;
    }
    String transition = current.filter(c -> c.status().equals(value))
        .map(JobRecord.Condition::lastTransitionTime).orElse(now.toString());
    List<JobRecord.Condition> kept = new ArrayList<>();
    for (JobRecord.Condition c : conditions) {
      if (c.type().equals(type)
          || (type.equals("Restarting") && c.type().equals("Running"))
          || (type.equals("Running") && c.type().equals("Restarting"))) {
        continue;
      }
      if ((type.equals("Failed") || type.equals("Succeeded")) && c.type().equals("Running")) {
        c = new JobRecord.Condition(c.type(), "False", c.reason(), c.message(),
            c.lastUpdateTime(), c.lastTransitionTime());
      }
      kept.add(c);
    }
    kept.add(new JobRecord.Condition(type, value, reason, message, now.toString(), transition));
    conditions.clear();
    conditions.addAll(kept);
  }

  /** Whether condition {@code type} is True. */
  boolean isTrue(String type) {
    return find(type).map(c -> c.status().equals("True")).orElse(false);
  }

  /** The conditions in order. */
  List<JobRecord.Condition> list() {
    return List.copyOf(conditions);
  }

  private Optional<JobRecord.Condition> find(String type) {
    return conditions.stream().filter(c -> c.type().equals(type)).findFirst();
  }
}
