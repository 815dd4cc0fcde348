/**
 * Storage that outlives jobs: hostPath PersistentVolumes and PersistentVolumeClaims as immutable
 * values ({@link dev.fairing4j.deployer.storage.Volumes}), rendered as manifests and created
 * idempotently on a cluster ({@link dev.fairing4j.deployer.storage.ClusterStorage#ensure}).
 */
package dev.fairing4j.deployer.storage;
