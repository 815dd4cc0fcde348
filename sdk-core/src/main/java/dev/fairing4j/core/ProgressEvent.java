package dev.fairing4j.core;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Something a pipeline did that a user may want to see: a build step starting or ending, bytes
 * pushed, a job's phase changing, training advancing, or a note. Delivered to a
 * {@link ProgressListener}; {@link ConsoleProgress} draws them as one updating line on a
 * terminal, one display updated in place in a notebook, and plain lines elsewhere.
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

  /**
   * A replica's training advanced, as its log said while the job's logs were followed
   * ({@code job.logs().follow(..)} on a job the pipeline started): the epoch, how far along,
   * the time left and the latest metrics.
   *
   * @param job the job name
   * @param replica the replica that logged it, e.g. {@code master-0}
   * @param epoch the epoch it is in, from 1, once a progress line named one
   * @param epochs how many epochs there are, when the log tells ({@code Epoch 3/10})
   * @param percent how far along: of the whole training when {@code epochs} is known, else of
   *     the current epoch; empty before any progress line
   * @param eta the time left for the same span as {@code percent}, from the pace so far; empty
   *     until two progress lines have been seen
   * @param metrics the latest value of each metric the replica logged (loss, accuracy, ...),
   *     progress metrics excluded
   */
  record TrainingProgress(String job, String replica, Optional<Integer> epoch,
      Optional<Integer> epochs, Optional<Double> percent, Optional<Duration> eta,
      Map<String, Double> metrics) implements ProgressEvent {
    /** Checks the parts and copies the metrics, keeping their order. */
    public TrainingProgress {
      Objects.requireNonNull(job, "job");
      Objects.requireNonNull(replica, "replica");
      epoch = epoch == null ? Optional.empty() : epoch;
      epochs = epochs == null ? Optional.empty() : epochs;
      percent = percent == null ? Optional.empty() : percent;
      eta = eta == null ? Optional.empty() : eta;
      metrics = Collections.unmodifiableMap(new LinkedHashMap<>(metrics));
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
