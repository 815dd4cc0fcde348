/**
 * fairing4j's core: the vocabulary every stage speaks (pipelines, preprocessors, builders,
 * deployers, jobs, status, progress, errors). The {@code internal} packages are for the SDK's own
 * modules only.
 */
module dev.fairing4j.core {
  requires org.slf4j;

  exports dev.fairing4j.core;
  exports dev.fairing4j.core.cache;
  exports dev.fairing4j.core.internal to dev.fairing4j.builder, dev.fairing4j.deployer;
  exports dev.fairing4j.core.cache.internal to dev.fairing4j.builder, dev.fairing4j.deployer;

  // MetricsPlot draws through the renderer sdk-deployer provides (XChart), when it is there.
  uses dev.fairing4j.core.internal.ChartRenderer;

  // Jackson reads and writes the SDK's own records (job state, manifests, reports) by
  // reflection; it may, and no one else.
  opens dev.fairing4j.core to com.fasterxml.jackson.databind;
  opens dev.fairing4j.core.cache to com.fasterxml.jackson.databind;
  opens dev.fairing4j.core.cache.internal to com.fasterxml.jackson.databind;
  opens dev.fairing4j.core.internal to com.fasterxml.jackson.databind;
}
