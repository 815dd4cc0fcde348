/**
 * How the local cluster works: manifest interpretation, staging, interpreter choice, operator
 * environment, sandbox command lines, process supervision, status, logs and the state store. Not
 * an API: nothing here appears in a public signature.
 */
package dev.fairing4j.deployer.local.internal;
