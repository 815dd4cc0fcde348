/**
 * fairing4j's disk caches: {@link dev.fairing4j.core.cache.Caches} lists them with their sizes,
 * prunes them to {@link dev.fairing4j.core.cache.CacheLimits} and cleans them, without touching
 * what a running build uses.
 */
package dev.fairing4j.core.cache;
