package dev.fairing4j.deployer.local.internal.plan;

import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns the cluster addresses a manifest may spell out (for instance an Indexed Job's
 * {@code MASTER_ADDR=mnist-0.mnist.default.svc}) into local ones: a pod's host name, with any
 * domain after it, becomes {@code 127.0.0.1}, and a declared port after it becomes that pod's
 * local port. A bare declared port in a variable whose name ends in {@code PORT} becomes the
 * first replica's local port, where a rank-0 process listens.
 */
public final class HostRewriter {
  private final Pattern pattern;
  private final JobPorts ports;
  private final String firstPod;

  /** A rewriter for the pods of {@code plan}. */
  public HostRewriter(JobPlan plan, JobPorts ports) {
    // Longest first, so mnist-worker-10 is not read as mnist-worker-1 followed by "0".
    List<String> pods = plan.replicas().stream().map(ReplicaId::podName)
        .sorted(Comparator.comparingInt(String::length).reversed()).toList();
    this.ports = ports;
    this.firstPod = pods.isEmpty() ? "" : plan.replicas().get(0).podName();
    String alternatives = String.join("|", pods.stream().map(Pattern::quote).toList());
    // A host starts the value or follows "//", "@", "=", ",", a space, a quote or a bracket;
    // after a single "/" it is a path segment (/models/mnist-0) and stays as written.
    this.pattern = pods.isEmpty() ? null : Pattern.compile(
        "(?:^|(?<=//)|(?<=[@=,\\s\"'\\[(]))(" + alternatives + ")((?:\\.[A-Za-z0-9-]+)*)"
            + "(?::([0-9]{1,5}))?(?![A-Za-z0-9-])");
  }

  /** {@code value} with the job's host names and ports made local. */
  public String rewrite(String value) {
    if (pattern == null) {
      return value;
    }
    Matcher m = pattern.matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String pod = m.group(1);
      String replacement = OperatorEnv.LOOPBACK;
      if (m.group(3) != null) {
        int declared = Integer.parseInt(m.group(3));
        replacement += ":" + ports.local(pod, declared).orElse(declared);
      }
      m.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** Rewrites an env variable: host names, then a bare declared port in a {@code *PORT}. */
  public String rewrite(String name, String value) {
    String rewritten = rewrite(value);
    if (name.endsWith("PORT") && rewritten.matches("[0-9]{1,5}")) {
      return ports.local(firstPod, Integer.parseInt(rewritten)).map(String::valueOf)
          .orElse(rewritten);
    }
    return rewritten;
  }
}
