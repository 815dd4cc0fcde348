/**
 * The local cluster's settings (where it keeps state and volumes, how long finished jobs stay,
 * podman's configuration) and its exception: the bottom of the local cluster's machinery, which
 * every other package of it reads and which reads none of them.
 */
package dev.fairing4j.deployer.local.internal.settings;
