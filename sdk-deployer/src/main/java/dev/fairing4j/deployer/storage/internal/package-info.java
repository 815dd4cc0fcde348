/**
 * What a cluster implements to hold the storage room's objects (PersistentVolumes and claims);
 * here, in the storage room, so that the shared job machinery does not reach up into it.
 */
package dev.fairing4j.deployer.storage.internal;
