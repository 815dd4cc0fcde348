/**
 * fairing4j's deployer: job kinds ({@code Deployers}), mutators ({@code Mutators}), clusters
 * ({@code Clusters}: Kubernetes, local processes, podman), following, serving and tuning. The
 * {@code internal} packages are not exported.
 */
module dev.fairing4j.deployer {
  requires transitive dev.fairing4j.core;
  requires com.fasterxml.jackson.annotation;
  requires com.fasterxml.jackson.core;
  requires com.fasterxml.jackson.databind;
  requires com.fasterxml.jackson.dataformat.yaml;
  requires io.kubernetes.client.java;
  requires io.kubernetes.client.java.api;
  requires java.desktop;
  requires okhttp3;
  requires okio;
  requires org.bouncycastle.pkix;
  requires org.bouncycastle.provider;
  requires org.apache.commons.compress;
  requires org.slf4j;
  // No module names of their own: named after their jar files (re2j-1.8.jar, xchart-4.0.3.jar,
  // VectorGraphics2D-0.13.jar), as Java names automatic modules.
  requires re2j;
  requires xchart;
  requires VectorGraphics2D;

  exports dev.fairing4j.deployer;
  exports dev.fairing4j.deployer.batch;
  exports dev.fairing4j.deployer.job;
  exports dev.fairing4j.deployer.kubeflow;
  exports dev.fairing4j.deployer.kubernetes;
  exports dev.fairing4j.deployer.local;
  exports dev.fairing4j.deployer.monitor;
  exports dev.fairing4j.deployer.mutate;
  exports dev.fairing4j.deployer.serving;
  exports dev.fairing4j.deployer.storage;
  exports dev.fairing4j.deployer.trainer;
  exports dev.fairing4j.deployer.tuning;

  provides dev.fairing4j.core.internal.ChartRenderer with
      dev.fairing4j.deployer.monitor.internal.XChartRenderer;
  // Each kind's room provides what the clusters need to know about it; the class path reads
  // the same list from META-INF/services (ModuleDescriptorTest keeps the two equal).
  uses dev.fairing4j.deployer.job.internal.kinds.TrainingKind;
  provides dev.fairing4j.deployer.job.internal.kinds.TrainingKind with
      dev.fairing4j.deployer.kubeflow.internal.PyTorchJobType,
      dev.fairing4j.deployer.kubeflow.internal.TfJobType,
      dev.fairing4j.deployer.kubeflow.internal.XGBoostJobType;

  // Jackson reads and writes the SDK's own records (job state, manifests, reports) by
  // reflection; it may, and no one else.
  opens dev.fairing4j.deployer to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.batch to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.job to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.job.internal to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.kubeflow to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.kubernetes to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.kubernetes.internal.builds to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.kubernetes.internal.diagnosis to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.kubernetes.internal.jobs to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.kubernetes.internal.logs to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.kubernetes.internal.serving to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.kubernetes.internal.transport to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.local to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.local.internal to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.local.internal.logs to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.local.internal.operator to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.local.internal.plan to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.local.internal.python to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.local.internal.settings to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.local.internal.runtime to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.local.internal.state to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.local.internal.supervisor to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.monitor to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.monitor.internal to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.mutate to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.serving to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.storage to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.storage.internal to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.trainer to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.trainer.internal to com.fasterxml.jackson.databind;
  opens dev.fairing4j.deployer.tuning to com.fasterxml.jackson.databind;
}
