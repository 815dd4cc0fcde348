/**
 * The local operator: what the Kubeflow training operator would decide for a job whose
 * {@link dev.fairing4j.deployer.local.internal.plan plan} is read. The rules (restart policy,
 * backoff, success policy, clean pod policy, deadlines) as a state machine,
 * {@link dev.fairing4j.deployer.local.internal.operator.JobMachine}, which
 * {@link dev.fairing4j.deployer.local.internal.operator.JobSupervisor} drives with real
 * processes, a scheduler and the job's state file.
 */
package dev.fairing4j.deployer.local.internal.operator;
