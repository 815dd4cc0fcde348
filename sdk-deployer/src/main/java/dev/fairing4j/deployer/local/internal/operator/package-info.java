/**
 * The local operator: what the Kubeflow training operator would decide for a job. The job's plan
 * read from its manifest, the environment and host names each replica gets, volumes, and the
 * rules (restart policy, backoff, success policy, clean pod policy, deadlines) that
 * {@link dev.fairing4j.deployer.local.internal.operator.JobSupervisor} applies as replicas exit.
 */
package dev.fairing4j.deployer.local.internal.operator;
