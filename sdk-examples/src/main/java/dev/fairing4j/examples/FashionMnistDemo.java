package dev.fairing4j.examples;

import dev.fairing4j.core.ConsoleProgress;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.JobFailedException;
import dev.fairing4j.core.JobMetrics;
import dev.fairing4j.core.JobStatus;
import dev.fairing4j.core.LogStream;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.local.LocalCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * {@code scripts/demo.sh}: runs {@link FashionMnist} on this machine through the front door,
 * streams every replica's log lines prefixed by replica, and ends with the job's status table,
 * its metrics (the latest of each per replica) and where the model and a plot of the loss and
 * accuracy curves beside it were saved.
 *
 * <pre>
 * usage: FashionMnistDemo [--epochs N] [--samples N] [--test-samples N] [--workers N] [--quiet]
 * </pre>
 */
public final class FashionMnistDemo {
  private FashionMnistDemo() {}

  /** Runs the demo; exits non-zero when the job fails. */
  public static void main(String[] args) {
    FashionMnist settings = FashionMnist.defaults();
    boolean quiet = false;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      switch (arg) {
        case "--epochs" -> settings = with(settings, "epochs", number(args, ++i, arg));
        case "--samples" -> settings = with(settings, "samples", number(args, ++i, arg));
        case "--test-samples" -> settings = with(settings, "testSamples", number(args, ++i, arg));
        case "--workers" -> settings = with(settings, "workers", number(args, ++i, arg));
        case "--quiet" -> quiet = true;
        case "-h", "--help" -> {
          System.out.println("usage: scripts/demo.sh [--epochs N] [--samples N]"
              + " [--test-samples N] [--workers N] [--quiet]");
          return;
        }
        default -> {
          System.err.println("unknown option " + arg + "; see --help");
          System.exit(2);
        }
      }
    }
    LocalCluster cluster = Clusters.local();
    ProgressListener progress = quiet ? ConsoleProgress.off() : ConsoleProgress.auto();
    System.exit(run(settings, cluster, progress) ? 0 : 1);
  }

  /** Runs {@code settings} on {@code cluster}, printing logs and the final status; true on success. */
  static boolean run(FashionMnist settings, LocalCluster cluster, ProgressListener progress) {
    System.out.println("fairing4j demo: " + settings + " on " + cluster.describe());
    TrainingJob job;
    try {
      job = settings.pipeline(cluster).progress(progress).run();
    } catch (FairingException e) {
      System.err.println(e.getMessage());
      return false;
    }
    boolean succeeded = false;
    // On a terminal the progress line is cleared before each log line and drawn again after it.
    java.util.function.Consumer<String> print = progress instanceof ConsoleProgress console
        ? console::println : System.out::println;
    try (LogStream logs = job.logs().follow(print)) {
      job.waitForCompletion(Duration.ofMinutes(60));
      succeeded = true;
      // The last lines (accuracy, saved model) may still be in flight.
      logs.awaitEnd(Duration.ofSeconds(10));
    } catch (JobFailedException e) {
      System.err.println(e.getMessage());
    }
    JobStatus status = job.status();
    System.out.println();
    System.out.println(status.toTable());
    JobMetrics metrics = job.metrics();
    System.out.println();
    System.out.println(metrics);
    Path model = cluster.claimDir(FashionMnist.MODELS_CLAIM).resolve("mnist_cnn.pt");
    System.out.println();
    System.out.println(Files.isRegularFile(model)
        ? "model saved to " + model + " (claim " + FashionMnist.MODELS_CLAIM + ")"
        : "no model at " + model);
    if (!metrics.isEmpty()) {
      try {
        Path plot = metrics.plot().save(model.resolveSibling(job.name() + "-metrics.png"));
        System.out.println("loss and accuracy curves saved to " + plot);
      } catch (FairingException e) {
        System.err.println(e.getMessage());
      }
    }
    return succeeded;
  }

  private static int number(String[] args, int index, String option) {
    if (index >= args.length) {
      throw new IllegalArgumentException(option + " needs a number");
    }
    try {
      int value = Integer.parseInt(args[index]);
      if (value < 0) {
        throw new NumberFormatException();
      }
      return value;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " needs a non-negative number, got '"
          + args[index] + "'");
    }
  }

  private static FashionMnist with(FashionMnist s, String field, int value) {
    return switch (field) {
      case "epochs" -> new FashionMnist(s.jobName(), value, s.samples(), s.testSamples(), s.workers());
      case "samples" -> new FashionMnist(s.jobName(), s.epochs(), value, s.testSamples(), s.workers());
      case "testSamples" -> new FashionMnist(s.jobName(), s.epochs(), s.samples(), value, s.workers());
      case "workers" -> new FashionMnist(s.jobName(), s.epochs(), s.samples(), s.testSamples(), value);
      default -> throw new IllegalArgumentException(field);
    };
  }
}
