package dev.fairing4j.deployer.mutate;

import dev.fairing4j.deployer.job.PodMutator;
import dev.fairing4j.deployer.job.PodTemplate;
import dev.fairing4j.deployer.job.internal.Metadata;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * Labels and annotations on the pods (not the job object), set key by key.
 *
 * @param labels labels to set
 * @param annotations annotations to set
 */
public record PodMetadata(Map<String, String> labels, Map<String, String> annotations)
    implements PodMutator {

  /** Checks and copies the keys and values. */
  public PodMetadata {
    labels.forEach(Metadata::checkLabel);
    annotations.forEach(Metadata::checkAnnotation);
    labels = Collections.unmodifiableMap(new TreeMap<>(labels));
    annotations = Collections.unmodifiableMap(new TreeMap<>(annotations));
  }

  @Override
  public void apply(PodTemplate template) {
    labels.forEach(template::putLabel);
    annotations.forEach(template::putAnnotation);
  }
}
