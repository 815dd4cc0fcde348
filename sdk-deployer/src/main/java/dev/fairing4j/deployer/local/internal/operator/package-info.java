/**
 * The local operator: what the Kubeflow training operator would decide for a job. The job's plan
 * read from its manifest, the environment and host names each replica gets, volumes, and the
 * rules (restart policy, backoff, success policy, clean pod policy, deadlines) as a state
 * machine, {@link dev.fairing4j.deployer.local.internal.operator.JobMachine}, which
 * {@link dev.fairing4j.deployer.local.internal.operator.JobSupervisor} drives with real
 * processes, a scheduler and the job's state file.
 */
package dev.fairing4j.deployer.local.internal.operator;
