/**
 * Kubeflow training-operator job kinds ({@code kubeflow.org/v1}): {@link
 * dev.fairing4j.deployer.kubeflow.PyTorchJobDeployer} and {@link
 * dev.fairing4j.deployer.kubeflow.TfJobDeployer} and {@link
 * dev.fairing4j.deployer.kubeflow.XGBoostJobDeployer}, with the policies they share (restart, clean-pod,
 * scheduling). Obtain deployers from {@link dev.fairing4j.deployer.Deployers}.
 */
package dev.fairing4j.deployer.kubeflow;
