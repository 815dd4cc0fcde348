/**
 * The local cluster's state store: one directory per job with its record (the status the
 * operator would write), the lock that says which process owns it, and the mapping from records
 * to public statuses. Lives on disk so that another JVM can read, follow or delete a job.
 */
package dev.fairing4j.deployer.local.internal.state;
