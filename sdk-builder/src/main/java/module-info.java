/**
 * fairing4j's builder: what goes in the image ({@code Preprocessors}) and how it is built and
 * pushed ({@code Builders}: Jib, a Dockerfile, Kaniko in the cluster). Only
 * {@code dev.fairing4j.builder} is API; the {@code internal} packages are not exported.
 */
module dev.fairing4j.builder {
  requires transitive dev.fairing4j.core;
  requires com.fasterxml.jackson.core;
  requires com.fasterxml.jackson.databind;
  requires com.google.cloud.tools.jib;
  requires com.google.cloud.tools.jib.api.buildplan;
  requires com.google.common;
  requires java.logging;
  requires org.eclipse.jgit;
  requires org.slf4j;

  exports dev.fairing4j.builder;

  // Jackson reads and writes the SDK's own records (job state, manifests, reports) by
  // reflection; it may, and no one else.
  opens dev.fairing4j.builder to com.fasterxml.jackson.databind;
  opens dev.fairing4j.builder.internal.dockerfile to com.fasterxml.jackson.databind;
  opens dev.fairing4j.builder.internal.image to com.fasterxml.jackson.databind;
  opens dev.fairing4j.builder.internal.preprocess to com.fasterxml.jackson.databind;
}
