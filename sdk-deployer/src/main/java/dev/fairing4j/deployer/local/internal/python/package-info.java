/**
 * Python on the host: which interpreter runs a script, what it imports, how torchrun is started,
 * and how a job's {@code requirements.txt} is installed once with the host's pip configuration.
 */
package dev.fairing4j.deployer.local.internal.python;
