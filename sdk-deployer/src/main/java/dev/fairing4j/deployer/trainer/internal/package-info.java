/**
 * How a TrainJob is rendered and read: the translation of a mutated pod template into the
 * TrainJob's trainer fields and runtime patches, the rules the Trainer's CRD and webhooks
 * enforce (checked before any request), the v2.0 shape, the torchrun command, the status mapping
 * and the torch plugin's topology (pod names, {@code PET_*}). Not an API: nothing here appears in
 * a public signature.
 */
package dev.fairing4j.deployer.trainer.internal;
