/**
 * The local clusters: run rendered Kubeflow jobs and batch Jobs on this machine with the
 * operator's environment, each replica a sandboxed local process running the build context
 * ({@link dev.fairing4j.deployer.local.LocalCluster#create()}) or a podman container running the
 * built image ({@link dev.fairing4j.deployer.local.PodmanCluster#create()}).
 */
package dev.fairing4j.deployer.local;
