/**
 * The local cluster: runs rendered Kubeflow jobs and batch Jobs on this machine, each replica a
 * sandboxed local process with the operator's environment. Start from
 * {@link dev.fairing4j.deploy.local.LocalCluster#create()}.
 */
package dev.fairing4j.deploy.local;
