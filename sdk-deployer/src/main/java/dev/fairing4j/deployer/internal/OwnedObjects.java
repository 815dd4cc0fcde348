package dev.fairing4j.deployer.internal;

import java.util.List;
import java.util.Map;

/**
 * A job handle that can create objects owned by its job (an ownerReference to it), so the
 * cluster deletes them with the job: the seam through which helpers such as
 * {@link dev.fairing4j.deployer.monitor.TensorBoard} add companions to a running job.
 */
public interface OwnedObjects {
  /**
   * Creates {@code objects} in the job's namespace with an ownerReference to the job; an object
   * that already exists is kept as it is (re-running a notebook cell is harmless). Returns the
   * objects as stored.
   */
  List<Map<String, Object>> createOwned(List<Map<String, Object>> objects);
}
