/**
 * Endpoints on Kubernetes: reading a serving Deployment's readiness and why it is not ready (a
 * pod that cannot start, a model that failed to load, as the model server itself says through the
 * pod proxy), and sending predict requests through the API server's service proxy, which needs
 * only a kubeconfig. Reads jobs' and pods' objects through {@code jobs} and {@code diagnosis}.
 */
package dev.fairing4j.deployer.kubernetes.internal.serving;
