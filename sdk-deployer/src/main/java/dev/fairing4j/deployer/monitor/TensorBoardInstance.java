package dev.fairing4j.deployer.monitor;

import java.util.Objects;

/**
 * A TensorBoard started for a job: the name of its Deployment and Service and how to open it
 * from this machine.
 *
 * @param name the Deployment and Service name
 * @param namespace their namespace (the job's)
 * @param logDir the log directory TensorBoard reads, as seen in its container
 * @param portForwardCommand the {@code kubectl port-forward} command that makes it reachable at
 *     {@link #localUrl()}
 */
public record TensorBoardInstance(String name, String namespace, String logDir,
    String portForwardCommand) {
  /** Checks the parts. */
  public TensorBoardInstance {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(logDir, "logDir");
    Objects.requireNonNull(portForwardCommand, "portForwardCommand");
  }

  /** Where TensorBoard answers once the port-forward runs. */
  public String localUrl() {
    return "http://localhost:" + TensorBoard.PORT;
  }

  @Override
  public String toString() {
    return "TensorBoard " + namespace + "/" + name + " (" + logDir + "): run '"
        + portForwardCommand + "', then open " + localUrl();
  }
}
