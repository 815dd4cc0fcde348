package dev.fairing4j.core.internal;

import dev.fairing4j.core.InvalidInputException;

/**
 * The refusals of a submission that asks a deployer for what it does not do: the pipeline says
 * them before a build, a plan says them again when it is called directly, and both must read
 * the same.
 */
public final class Refusals {
  private Refusals() {}

  /** {@code run()} on a deployer that serves a model. */
  public static InvalidInputException servesNotRuns(String name) {
    return InvalidInputException.of("deployer", name + " serves a model; run() submits"
        + " training jobs", "call serve() on the pipeline to create the endpoint");
  }

  /** {@code serve()} on a deployer that runs a training job. */
  public static InvalidInputException runsNotServes(String name) {
    return InvalidInputException.of("deployer", name + " runs a training job, not an endpoint",
        "call run() for it, or serve with .deployer(Deployers.serving(\"name\")...)");
  }
}
