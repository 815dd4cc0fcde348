/**
 * What the Kubeflow training operator does with each of its kinds (CONTRACT.md): the
 * {@link dev.fairing4j.deployer.job.internal.kinds.TrainingKind}s of PyTorchJob, TFJob and
 * XGBoostJob, which the clusters find through {@link java.util.ServiceLoader}.
 */
package dev.fairing4j.deployer.kubeflow.internal;
