/**
 * The supervisor process a detached local job runs under ({@code SupervisorMain}), how this JVM
 * starts one (spares kept booted), controls it and relays its phase changes to listeners.
 */
package dev.fairing4j.deployer.local.internal.supervisor;
