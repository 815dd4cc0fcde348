/**
 * How the local cluster works, in rooms: {@code operator} (what should run next), {@code runtime}
 * (how a replica runs), {@code state} (job records and locks), {@code supervisor} (the process that
 * follows a job), {@code python} (interpreter and dependencies), {@code logs} and, below them
 * all, {@code settings}. This package itself holds the submit paths that use them all and the job
 * handles. Not an API: nothing here appears in a public signature.
 */
package dev.fairing4j.deployer.local.internal;
