package dev.fairing4j.core;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Something a pipeline did that a user may want to see: a build step starting or ending, bytes
 * pushed, a job's phase changing, or a note. Delivered to a {@link ProgressListener}; a console
 * renderer draws them as one updating line on a terminal and plain lines elsewhere.
 */
public sealed interface ProgressEvent {

  /** A named step began, e.g. {@code "build image"} or {@code "submit PyTorchJob mnist"}. */
  record StepStarted(String step) implements ProgressEvent {
    /** Checks the step name. */
    public StepStarted {
      Objects.requireNonNull(step, "step");
    }
  }

  /** A named step ended after {@code took}. */
  record StepFinished(String step, Duration took) implements ProgressEvent {
    /** Checks the parts. */
    public StepFinished {
      Objects.requireNonNull(step, "step");
      Objects.requireNonNull(took, "took");
    }
  }

  /**
   * Bytes moved so far for {@code what} (an image push, a base pull); {@code total} is -1 when
   * unknown.
   */
  record BytesTransferred(String what, long done, long total) implements ProgressEvent {
    /** Checks the parts. */
    public BytesTransferred {
      Objects.requireNonNull(what, "what");
    }
  }

  /** A job moved from one phase to another; {@code replicas} counts pods by state. */
  record PhaseChanged(String job, JobPhase previous, JobPhase current,
      Map<String, Integer> replicas) implements ProgressEvent {
    /** Copies the counts. */
    public PhaseChanged {
      Objects.requireNonNull(job, "job");
      Objects.requireNonNull(current, "current");
      replicas = Map.copyOf(replicas);
    }
  }

  /** Free text worth showing, e.g. which Python interpreter the local cluster chose. */
  record Note(String message) implements ProgressEvent {
    /** Checks the message. */
    public Note {
      Objects.requireNonNull(message, "message");
    }
  }
}
