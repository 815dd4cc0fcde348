/**
 * The vocabulary every job deployer speaks: {@link dev.fairing4j.deployer.job.JobOptions},
 * {@link dev.fairing4j.deployer.job.PodTemplate} and {@link dev.fairing4j.deployer.job.PodMutator},
 * {@link dev.fairing4j.deployer.job.ReplicaType}, {@link dev.fairing4j.deployer.job.RestartPolicy},
 * the {@link dev.fairing4j.deployer.job.Cluster} a job goes to, and the
 * {@link dev.fairing4j.deployer.job.JobDeployer} base of the kinds' deployers.
 *
 * <p>It is the deployer's lowest layer: the kinds' rooms ({@code kubeflow}, {@code trainer},
 * {@code batch}, {@code serving}), the clusters ({@code local}, {@code kubernetes}) and tuning
 * build on it, and the front door ({@code Deployers}, {@code Clusters}, {@code Mutators},
 * {@code TrainingClient} in {@code dev.fairing4j.deployer}) on all of them; nothing here reaches
 * up. Its {@code internal} packages are the machinery they share (rendering, the cluster backend
 * seam, the kind seam).
 */
package dev.fairing4j.deployer.job;
