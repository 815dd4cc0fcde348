package dev.fairing4j.deployer.serving;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.deployer.job.JobOptions;
import dev.fairing4j.deployer.job.internal.ServedModel;
import java.util.List;
import java.util.Optional;

/**
 * What the serving deployers check and read from a context before anything is rendered: the
 * model name its model server answers to, read from its command as the server reads it
 * ({@code --model_name}, else the predictor file's stem), so that the readiness path and the
 * predict URL name the model the server loads; and the settings an endpoint cannot have (a job's
 * limits, arguments for fairing4j's server).
 */
final class ServingChecks {
  private static final java.util.regex.Pattern NAME =
      java.util.regex.Pattern.compile("[a-z0-9]([a-z0-9._-]*[a-z0-9])?");

  private ServingChecks() {}

  /**
   * Checks a model name given to a deployer: a path segment of {@code /v1/models/<name>}.
   *
   * @throws InvalidInputException naming {@code modelName}
   */
  static String check(String name) {
    dev.fairing4j.core.internal.Validators.requireText("modelName", name);
    if (!NAME.matcher(name).matches()) {
      throw InvalidInputException.of("modelName", "'" + name + "' cannot be a path segment of"
          + " /v1/models/<name>", "use lower-case letters, digits, '.', '_' and '-', e.g."
          + " mnist");
    }
    return name;
  }

  /** Whether {@code context} runs fairing4j's model server. */
  static boolean runsModelServer(BuildContext context) {
    String server = ServedModel.SERVER_FILE;
    return context.command().stream()
        .anyMatch(part -> part.endsWith("/" + server) || part.equals(server));
  }

  /** The name the context's model server answers to; empty for another server. */
  static Optional<String> served(BuildContext context) {
    if (!runsModelServer(context)) {
      return Optional.empty();
    }
    List<String> command = context.command();
    Optional<String> named = after(command, "--model_name");
    if (named.isPresent()) {
      return named;
    }
    return after(command, "--predictor").map(ServingChecks::stem);
  }

  /**
   * The model name the endpoint uses: the deployer's when set, else the context's.
   *
   * @throws InvalidInputException when neither names one, or they differ
   */
  static String of(BuildContext context, Optional<String> configured, String endpoint) {
    Optional<String> served = served(context);
    if (configured.isPresent() && served.isPresent()
        && !configured.get().equals(served.get())
        && after(context.command(), "--model_name").isPresent()) {
      throw InvalidInputException.of("modelName", "'" + configured.get() + "' differs from '"
          + served.get() + "', which the predictor serves",
          "drop .modelName(..) from the deployer, or set the name once, on"
              + " Preprocessors.predictor(..).modelName(..)");
    }
    return configured.or(() -> served).orElseThrow(() -> InvalidInputException.of("modelName",
        "is not known for endpoint " + endpoint + ": its context does not run fairing4j's model"
            + " server", "package the model with Preprocessors.predictor(Path.of(\"predictor.py"
            + "\")), or name the model your own server serves with .modelName(\"mnist\")"));
  }

  /**
   * Refuses a deployer's {@code args} for fairing4j's model server, whose command line is the
   * SDK's: it would exit on them (and crash-loop), since it takes no arguments of the user's.
   *
   * @throws InvalidInputException naming {@code args}
   */
  static void refuseServerArgs(boolean modelServer, List<String> args) {
    if (modelServer && !args.isEmpty()) {
      throw InvalidInputException.of("args", args + " would go to fairing4j's model server,"
          + " which takes no arguments of yours", "drop .args(..); configure the predictor"
          + " with .env(\"NAME\", \"value\") on the deployer, or with"
          + " Preprocessors.predictor(..).modelName(..)/className(..)");
    }
  }

  /**
   * Refuses what only a job has: a backoff limit, a deadline, a TTL, suspension, a Kueue queue.
   * An endpoint serves until it is deleted.
   *
   * @throws InvalidInputException naming the setting
   */
  static void refuseJobSettings(JobOptions options, String deployer) {
    refuse("backoffLimit", options.backoffLimit().isPresent(), deployer);
    refuse("activeDeadlineSeconds", options.activeDeadlineSeconds().isPresent(), deployer);
    refuse("ttlSecondsAfterFinished", options.ttlSecondsAfterFinished().isPresent(), deployer);
    refuse("suspend", options.suspend(), deployer);
    refuse("kueueQueue", options.kueueQueue().isPresent(), deployer);
  }

  private static void refuse(String field, boolean set, String deployer) {
    if (set) {
      throw InvalidInputException.of(field, "is a job's setting; an endpoint serves until it is"
          + " deleted", "drop ." + field + "(..) from " + deployer);
    }
  }

  private static Optional<String> after(List<String> command, String flag) {
    int at = command.indexOf(flag);
    return at >= 0 && at + 1 < command.size() ? Optional.of(command.get(at + 1))
        : Optional.empty();
  }

  private static String stem(String path) {
    String file = path.substring(path.lastIndexOf('/') + 1);
    return file.endsWith(".py") ? file.substring(0, file.length() - 3) : file;
  }
}
