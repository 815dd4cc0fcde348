/**
 * Explaining a job that does not run or failed: pod states, warning events, the pods that wait too
 * long, and the failure report with the last lines each replica printed.
 */
package dev.fairing4j.deployer.kubernetes.internal.diagnosis;
