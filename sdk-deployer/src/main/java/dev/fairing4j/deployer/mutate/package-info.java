/**
 * The pod-template changes {@link dev.fairing4j.deployer.Mutators} returns, as values: resources,
 * volumes, environment, scheduling constraints, identity and security settings. Each is
 * idempotent and works on the training container by name.
 */
package dev.fairing4j.deployer.mutate;
