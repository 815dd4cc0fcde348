/**
 * The Trainer's status server on this machine: the HTTPS endpoint a TrainJob's script posts its
 * progress to ({@code update_trainjob_status} of the Kubeflow SDK, Trainer's TrainJobStatus
 * plugin), served on the loopback address by the job's supervisor with a token and a CA of the
 * job's own, and the reports it keeps for {@code metrics()}. Uses the plan and the sandbox's bind
 * type, nothing else of the local cluster.
 */
package dev.fairing4j.deployer.local.internal.trainerstatus;
