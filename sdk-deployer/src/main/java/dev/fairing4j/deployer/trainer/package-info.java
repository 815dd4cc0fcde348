/**
 * Kubeflow Trainer v2's TrainJob ({@code trainer.kubeflow.org/v1alpha1}): {@link
 * dev.fairing4j.deployer.trainer.TrainJobDeployer} submits the training code as a TrainJob on a
 * runtime (a ClusterTrainingRuntime such as {@code torch-distributed}, or a namespaced
 * TrainingRuntime); the Trainer controller turns it into a JobSet whose {@code node} pods get the
 * torch plugin's {@code PET_*} environment. {@link dev.fairing4j.deployer.trainer.Initializer}
 * describes a dataset or model initializer, {@link dev.fairing4j.deployer.trainer.TrainerApi} which
 * Trainer version's TrainJob shape is sent. Obtain deployers from {@link
 * dev.fairing4j.deployer.Deployers#trainJob(String)}.
 */
package dev.fairing4j.deployer.trainer;
