/**
 * Explaining a job that does not run or failed, from what {@code jobs} reads: waiting for the end
 * and reporting a failure with the last lines each replica printed, the pods that wait too long,
 * and the memory of recent log lines the report quotes.
 */
package dev.fairing4j.deployer.kubernetes.internal.diagnosis;
