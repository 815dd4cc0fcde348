/**
 * Hyperparameter search: the vocabulary an experiment is written in ({@link
 * dev.fairing4j.deployer.tuning.Search} for the space, {@link
 * dev.fairing4j.deployer.tuning.Objective}, {@link dev.fairing4j.deployer.tuning.Algorithm}) and
 * the trials an algorithm proposes ({@link dev.fairing4j.deployer.tuning.TrialPlan}), the same
 * whether the SDK runs the trials itself or hands the search to Katib or Trainer.
 */
package dev.fairing4j.deployer.tuning;
