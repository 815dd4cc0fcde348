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

  private static final String USAGE = "usage: scripts/demo.sh [--epochs N] [--samples N]"
      + " [--test-samples N] [--workers N] [--quiet]\n"
      + "  --epochs N        passes over the training data (default 1, at least 1)\n"
      + "  --samples N       train on the first N images (default 0: all 60,000)\n"
      + "  --test-samples N  evaluate on the first N test images (default 0: all 10,000)\n"
      + "  --workers N       Workers beside the Master (default 1)\n"
      + "  --quiet           no progress line\n"
      + "  --attach          follow the demo's job again (after Ctrl-C) to its end\n"
      + "  --delete          delete the demo's job (it keeps running after Ctrl-C)";

  /** Runs the demo; exits non-zero when the job fails, 2 for a bad argument. */
  public static void main(String[] args) {
    FashionMnist settings;
    boolean quiet;
    Parsed parsed;
    try {
      parsed = parse(args);
      if (parsed == null) {
        System.out.println(USAGE);
        return;
      }
      settings = parsed.settings();
      quiet = parsed.quiet();
    } catch (IllegalArgumentException e) {
      System.err.println("demo: " + e.getMessage());
      System.err.println(USAGE);
      System.exit(2);
      return;
    }
    LocalCluster cluster = Clusters.local();
    ProgressListener progress = quiet ? ConsoleProgress.off() : ConsoleProgress.auto();
    switch (parsed.action()) {
      case DELETE -> System.exit(delete(settings, cluster) ? 0 : 1);
      case ATTACH -> System.exit(attach(settings, cluster, progress) ? 0 : 1);
      default -> System.exit(run(settings, cluster, progress) ? 0 : 1);
    }
  }

  /** What the demo is asked to do. */
  enum Action { RUN, ATTACH, DELETE }

  private static boolean delete(FashionMnist settings, LocalCluster cluster) {
    java.util.Optional<TrainingJob> job = cluster.attach("default", settings.jobName());
    if (job.isEmpty()) {
      System.out.println("demo: there is no job " + settings.jobName() + " to delete");
      return true;
    }
    job.get().delete();
    System.out.println("demo: deleted " + job.get());
    return true;
  }

  private static boolean attach(FashionMnist settings, LocalCluster cluster,
      ProgressListener progress) {
    java.util.Optional<TrainingJob> job = cluster.attach("default", settings.jobName());
    if (job.isEmpty()) {
      System.err.println("demo: there is no job " + settings.jobName() + " to follow; run"
          + " scripts/demo.sh to start one");
      return false;
    }
    System.out.println("fairing4j demo: following " + job.get());
    return follow(job.get(), cluster, progress);
  }

  /** The demo's settings from its arguments. */
  record Parsed(FashionMnist settings, boolean quiet, Action action) {}

  /**
   * Reads {@code args} ({@code --epochs 2} or {@code --epochs=2}); null for {@code --help}.
   *
   * @throws IllegalArgumentException saying which argument is wrong and what it takes
   */
  static Parsed parse(String[] args) {
    FashionMnist settings = FashionMnist.defaults();
    boolean quiet = false;
    Action action = Action.RUN;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      String option = arg;
      String value = null;
      int equals = arg.indexOf('=');
      if (arg.startsWith("--") && equals > 0) {
        option = arg.substring(0, equals);
        value = arg.substring(equals + 1);
      }
      switch (option) {
        case "--quiet" -> quiet = true;
        case "--attach" -> action = Action.ATTACH;
        case "--delete" -> action = Action.DELETE;
        case "-h", "--help" -> {
          return null;
        }
        case "--epochs", "--samples", "--test-samples", "--workers" -> {
          if (value == null) {
            if (i + 1 >= args.length) {
              throw new IllegalArgumentException(option + " needs a number, e.g. " + option
                  + " 2");
            }
            value = args[++i];
          }
          int n = number(option, value, option.equals("--epochs") ? 1 : 0);
          settings = with(settings, option, n);
        }
        default -> throw new IllegalArgumentException("unknown argument '" + arg + "'");
      }
    }
    return new Parsed(settings, quiet, action);
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
    return follow(job, cluster, progress);
  }

  /**
   * Follows {@code job}'s logs to its end and prints its status, metrics, model and plot; true
   * when it succeeded. Interrupted (Ctrl-C), it says that the job goes on and how to follow or
   * delete it: jobs on the local cluster outlive the JVM that started them, as on a cluster.
   */
  static boolean follow(TrainingJob job, LocalCluster cluster, ProgressListener progress) {
    java.util.concurrent.atomic.AtomicBoolean ended = new java.util.concurrent.atomic
        .AtomicBoolean();
    Thread notice = new Thread(() -> {
      if (!ended.get()) {
        System.err.println();
        System.err.println("demo: stopped following " + job + "; the job goes on running on"
            + " this machine. Follow it again: scripts/demo.sh --attach; delete it:"
            + " scripts/demo.sh --delete");
      }
    }, "demo-interrupted");
    Runtime.getRuntime().addShutdownHook(notice);
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
    } finally {
      ended.set(true);
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

  private static int number(String option, String value, int least) {
    int n;
    try {
      n = Integer.parseInt(value.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " takes a whole number, not '" + value + "'");
    }
    if (n < least) {
      throw new IllegalArgumentException(option + " takes " + least + " or more, not " + n);
    }
    return n;
  }

  private static FashionMnist with(FashionMnist s, String field, int value) {
    return switch (field) {
      case "--epochs" -> new FashionMnist(s.jobName(), value, s.samples(), s.testSamples(), s.workers());
      case "--samples" -> new FashionMnist(s.jobName(), s.epochs(), value, s.testSamples(), s.workers());
      case "--test-samples" -> new FashionMnist(s.jobName(), s.epochs(), s.samples(), value, s.workers());
      case "--workers" -> new FashionMnist(s.jobName(), s.epochs(), s.samples(), s.testSamples(), value);
      default -> throw new IllegalArgumentException(field);
    };
  }
}
