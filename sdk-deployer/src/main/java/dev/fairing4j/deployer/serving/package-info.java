/**
 * Serving a trained model behind an endpoint: {@link
 * dev.fairing4j.deployer.serving.ServingDeployer} (a Deployment and a Service running the
 * predictor's model server, as Kubeflow Fairing's {@code serving} deployer did), whose
 * {@code Pipeline.serve()} returns a {@link dev.fairing4j.core.Endpoint}.
 */
package dev.fairing4j.deployer.serving;
