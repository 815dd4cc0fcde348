/**
 * The plain Kubernetes {@code batch/v1} Job kind, {@link
 * dev.fairing4j.deployer.batch.BatchJobDeployer}: for clusters without the Kubeflow operator,
 * including distributed (Indexed) jobs that wire up DDP themselves.
 */
package dev.fairing4j.deployer.batch;
