/**
 * How the caches are measured and pruned: entries and their last use, the lock that keeps
 * pruning away from running builds, the least-recently-used pass. Not an API.
 */
package dev.fairing4j.core.cache.internal;
