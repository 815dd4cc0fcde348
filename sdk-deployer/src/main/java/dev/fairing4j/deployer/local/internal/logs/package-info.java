/**
 * Reading a local job's logs: the tail of each replica's log file and followers that stream new
 * lines as the supervisor writes them.
 */
package dev.fairing4j.deployer.local.internal.logs;
