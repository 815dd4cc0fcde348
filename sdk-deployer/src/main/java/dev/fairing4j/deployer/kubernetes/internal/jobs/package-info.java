/**
 * Jobs on a Kubernetes cluster: submitting (with storage and TrainJob preflight), reading status
 * with what their pods' states and warning events say, sharing one watch per connection, and
 * deleting. Reads only the transport below it.
 */
package dev.fairing4j.deployer.kubernetes.internal.jobs;
