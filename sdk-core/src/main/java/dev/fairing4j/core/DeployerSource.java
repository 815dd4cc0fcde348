package dev.fairing4j.core;

/**
 * What {@link Pipeline#deployer(DeployerSource)} takes: a {@link Deployer} of your own, or one of
 * the SDK's fluent deployers ({@code Deployers.pyTorchJob(..)}), which hand the pipeline their
 * steps here and so keep validate, render and submit off their own completion lists.
 */
@FunctionalInterface
public interface DeployerSource {
  /** The steps the pipeline calls to validate, render and submit the job. */
  Deployer asDeployer();
}
