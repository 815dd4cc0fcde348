/**
 * A Kubernetes job's logs: choosing the pods and containers to read, streaming every replica's
 * lines in order across restarts, and cursors that resume without duplicates.
 */
package dev.fairing4j.deployer.kubernetes.internal.logs;
