/**
 * Hyperparameter search. An {@link dev.fairing4j.deployer.tuning.Experiment} is a pipeline plus
 * the vocabulary a search is written in: {@link dev.fairing4j.deployer.tuning.Search} for the
 * space, {@link dev.fairing4j.deployer.tuning.Objective},
 * {@link dev.fairing4j.deployer.tuning.Algorithm},
 * {@link dev.fairing4j.deployer.tuning.EarlyStopping} and
 * {@link dev.fairing4j.deployer.tuning.ParameterStyle}. The trials an algorithm proposes are
 * worked out by {@link dev.fairing4j.deployer.tuning.TrialPlan}, deterministically. They are run
 * by this JVM on any cluster, or handed to Katib or to Trainer's OptimizationJob
 * ({@link dev.fairing4j.deployer.tuning.TuningBackend}). Either way an
 * {@link dev.fairing4j.deployer.tuning.ExperimentRun} follows them, and
 * {@link dev.fairing4j.deployer.tuning.ExperimentResults} shows where they stand, as a table of
 * {@link dev.fairing4j.deployer.tuning.Trial}s and as
 * {@link dev.fairing4j.deployer.tuning.TrialPlot}s.
 */
package dev.fairing4j.deployer.tuning;
