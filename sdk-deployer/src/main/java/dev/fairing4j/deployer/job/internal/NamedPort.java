package dev.fairing4j.deployer.job.internal;

/**
 * A container port with the name a controller looks it up by, e.g. {@code pytorchjob-port}.
 *
 * @param name an IANA service name (at most 15 characters)
 * @param number the port number
 */
public record NamedPort(String name, int number) {}
