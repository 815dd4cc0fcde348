/**
 * Jobs on a Kubernetes cluster: submitting (with storage and TrainJob preflight), reading status,
 * waiting for completion through one shared watch per connection, and deleting.
 */
package dev.fairing4j.deployer.kubernetes.internal.jobs;
