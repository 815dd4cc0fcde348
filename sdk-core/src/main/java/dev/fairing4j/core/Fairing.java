package dev.fairing4j.core;

/**
 * The front door: {@code Fairing.pipeline().preprocessor(..).builder(..).deployer(..).run()}.
 *
 * <pre>{@code
 * TrainingJob job = Fairing.pipeline()
 *     .preprocessor(Preprocessors.python(Path.of("mnist.py")))
 *     .builder(Builders.jib("pytorch/pytorch:2.3.1-cuda12.1-cudnn8-runtime")
 *                      .pushTo("registry.example.com/team/mnist"))
 *     .deployer(Deployers.pyTorchJob("mnist").workers(1).on(Clusters.kubernetes()))
 *     .run();
 * }</pre>
 */
public final class Fairing {
  private Fairing() {}

  /** An empty pipeline; set its stages with the fluent calls, each returning a new pipeline. */
  public static Pipeline pipeline() {
    return Pipeline.EMPTY;
  }
}
