/**
 * Kubeflow training-operator job kinds ({@code kubeflow.org/v1}): {@link
 * dev.fairing4j.deploy.kubeflow.PyTorchJobDeployer} and {@link
 * dev.fairing4j.deploy.kubeflow.TfJobDeployer}, with the policies they share (restart, clean-pod,
 * scheduling). Obtain deployers from {@link dev.fairing4j.deploy.Deployers}.
 */
package dev.fairing4j.deploy.kubeflow;
