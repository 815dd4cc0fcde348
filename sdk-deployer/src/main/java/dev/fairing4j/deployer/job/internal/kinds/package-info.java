/**
 * The seam between the job kinds and the clusters: what a cluster needs to know about a kind it
 * runs but does not render (its replica types, the container and port its operator looks for, the
 * environment the operator injects, when the job has succeeded), as {@link
 * dev.fairing4j.deployer.job.internal.kinds.TrainingKind}, found through {@link
 * java.util.ServiceLoader}.
 * Each kind's room provides its own; this package depends on no room and no cluster.
 */
package dev.fairing4j.deployer.job.internal.kinds;
