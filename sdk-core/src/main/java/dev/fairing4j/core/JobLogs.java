package dev.fairing4j.core;

import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;

/**
 * The logs of a job's replicas, as an immutable request: narrow it with {@link #tail},
 * {@link #since} or {@link #replica}, then read a snapshot or follow. Lines are handed to the
 * caller, never written to the SDK's own log.
 */
public interface JobLogs {
  /** Only the last {@code lines} lines of each replica (then new ones, when following). */
  JobLogs tail(int lines);

  /** Only lines written at or after {@code time}. */
  JobLogs since(Instant time);

  /**
   * Only one replica: an instance such as {@code "worker-1"} or a whole type such as
   * {@code "worker"}.
   */
  JobLogs replica(String replica);

  /**
   * Another container of each pod instead of the training container: a sidecar, or an init
   * container (e.g. one that fetches the data). The SDK's clusters check the name when the logs
   * are read, against the containers the pods have; this default refuses, for a
   * {@code JobLogs} that has one container only.
   *
   * @throws InvalidInputException naming {@code container}
   */
  default JobLogs container(String name) {
    throw InvalidInputException.of("container", this + " reads one container only",
        "leave container(..) out");
  }

  /** The lines written so far, each replica's in order. */
  List<LogLine> snapshot();

  /** Streams every selected replica in the background; returns at once. */
  LogStream stream(Consumer<LogLine> consumer);

  /**
   * Streams every selected replica in the background, each line prefixed with its replica
   * ({@code [master-0] ...}); returns at once.
   */
  default LogStream follow(Consumer<String> consumer) {
    return stream(line -> consumer.accept(line.toString()));
  }
}
