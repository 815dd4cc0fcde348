/**
 * What a job's manifest asks of the local cluster, read once before anything runs: its kind and
 * replica groups ({@link dev.fairing4j.deployer.local.internal.plan.JobPlan}, from a
 * PyTorchJob, TFJob, TrainJob or batch Job), each group's restart policy, the environment the
 * Kubeflow operator would inject (ranks, master address, {@code TF_CONFIG}, {@code PET_*}), the
 * host names and loopback addresses of the job's pods, their ports and their volumes. Values
 * and pure functions; the operator's rules and the supervisor act on them.
 */
package dev.fairing4j.deployer.local.internal.plan;
