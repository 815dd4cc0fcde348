/**
 * Talking to a Kubernetes API server: cluster configuration from kubeconfigs or in-cluster
 * settings, REST calls with retries and structured errors, list-then-watch, streaming responses and
 * redaction of secrets. Depends on no other room of the Kubernetes backend.
 */
package dev.fairing4j.deployer.kubernetes.internal.transport;
