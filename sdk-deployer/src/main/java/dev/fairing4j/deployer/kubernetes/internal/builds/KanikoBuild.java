package dev.fairing4j.deployer.kubernetes.internal.builds;

import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.PodBuild;
import dev.fairing4j.core.ProgressEvent;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.deployer.job.internal.JsonTree;
import dev.fairing4j.deployer.job.internal.PullSecret;
import dev.fairing4j.deployer.kubernetes.internal.jobs.Deletion;
import dev.fairing4j.deployer.kubernetes.internal.jobs.KubeConnection;
import dev.fairing4j.deployer.kubernetes.internal.transport.KubeRest;
import dev.fairing4j.deployer.kubernetes.internal.transport.LogConnection;
import dev.fairing4j.deployer.kubernetes.internal.transport.ResourceRef;
import dev.fairing4j.deployer.kubernetes.internal.transport.Timings;
import io.kubernetes.client.Attach;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.openapi.ApiException;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One build in a Kaniko pod: a short-lived {@code dockerconfigjson} Secret with the registry
 * credentials (when there are any), a pod that reads the context from its stdin
 * ({@code --context=tar://stdin}, {@code stdinOnce}), the context streamed to it through the
 * attach API as a gzipped tar, its log followed line by line, the digest read from its termination message
 * ({@code --digest-file=/dev/termination-log}), and the pod and the Secret deleted afterwards,
 * whatever happened. No object storage and no volume is needed.
 */
public final class KanikoBuild {
  private static final Logger LOG = LoggerFactory.getLogger(KanikoBuild.class);
  private static final ResourceRef SECRETS = ResourceRef.of("v1", "Secret");
  private static final String CONTAINER = "kaniko";
  private static final int KEPT_LINES = 25;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final KubeConnection connection;

  /** A build on {@code connection}'s cluster. */
  public KanikoBuild(KubeConnection connection) {
    this.connection = connection;
  }

  /** Runs {@code build}; see the class comment. */
  public ImageRef run(PodBuild build, ProgressListener progress) {
    String namespace = build.namespace().orElseGet(() -> connection.config().namespace());
    byte[] suffix = new byte[4];
    RANDOM.nextBytes(suffix);
    String name = "fairing4j-build-" + HexFormat.of().formatHex(suffix);
    long deadline = System.nanoTime() + build.timeout().toNanos();
    KubeRest rest = connection.rest();
    Optional<String> secret = build.credentials().map(c -> name);
    try {
      if (secret.isPresent()) {
        rest.create(SECRETS, Optional.of(namespace), PullSecret.named(name,
            metadata(name, namespace), build.credentials().orElseThrow()));
      }
      rest.create(ResourceRef.PODS, Optional.of(namespace), podManifest(name, namespace, build,
          secret));
      progress.onEvent(new ProgressEvent.Note("kaniko: pod " + namespace + "/" + name + " ("
          + build.executorImage() + ") builds " + build.destination().reference()));
      awaitRunning(rest, namespace, name, build, deadline);
      Optional<FairingException> unsent = Optional.empty();
      try {
        long bytes = send(rest, namespace, name, build);
        progress.onEvent(new ProgressEvent.Note("kaniko: sent the context (" + build.files()
            .size() + " files, " + bytes + " bytes gzipped) to the pod's stdin"));
      } catch (FairingException e) {
        // An executor that stops reading (a bad Dockerfile, say) says why in its log.
        unsent = Optional.of(e);
        if (!endsSoon(rest, namespace, name)) {
          throw e;
        }
      }
      Deque<String> last = follow(rest, namespace, name, progress, deadline);
      Map<String, Object> terminated = awaitTerminated(rest, namespace, name, build, deadline,
          last);
      int exit = JsonTree.integer(terminated, "exitCode").orElse(-1);
      String message = JsonTree.string(terminated, "message").orElse("").strip();
      if (exit != 0 || !message.startsWith("sha256:")) {
        throw failure(build, "exited with " + exit + (unsent.isPresent() ? " before it read"
            + " all of the context" : ""), last);
      }
      if (unsent.isPresent()) {
        throw unsent.get();
      }
      ImageRef pushed = build.destination().withDigest(message);
      progress.onEvent(new ProgressEvent.Note("pushed " + pushed.reference() + " from the"
          + " cluster (kaniko)"));
      return pushed;
    } finally {
      remove(rest, namespace, name, secret, connection.timings());
    }
  }

  private static Map<String, Object> podManifest(String name, String namespace, PodBuild build,
      Optional<String> secret) {
    List<Object> args = new ArrayList<>(List.of("--context=tar://stdin",
        "--dockerfile=" + build.dockerfile(), "--destination="
            + build.destination().reference(), "--digest-file=/dev/termination-log",
        "--verbosity=info", "--push-retry=2"));
    for (String tag : build.extraTags()) {
      args.add("--destination=" + build.destination().name() + ":" + tag);
    }
    new java.util.TreeMap<>(build.buildArgs()).forEach((arg, value) ->
        args.add("--build-arg=" + arg + "=" + value));
    if (build.insecureRegistry()) {
      args.addAll(List.of("--insecure", "--insecure-pull", "--skip-tls-verify",
          "--skip-tls-verify-pull"));
    }
    Map<String, Object> container = new LinkedHashMap<>();
    container.put("name", CONTAINER);
    container.put("image", build.executorImage());
    container.put("args", args);
    container.put("stdin", true);
    container.put("stdinOnce", true);
    container.put("tty", false);
    container.put("terminationMessagePolicy", "File");
    Map<String, Object> spec = new LinkedHashMap<>();
    spec.put("restartPolicy", "Never");
    spec.put("containers", List.of(container));
    secret.ifPresent(s -> {
      container.put("volumeMounts", List.of(Map.of("name", "docker-config",
          "mountPath", "/kaniko/.docker")));
      spec.put("volumes", List.of(Map.of("name", "docker-config", "secret", Map.of(
          "secretName", s, "items", List.of(Map.of("key", PullSecret.KEY,
              "path", "config.json"))))));
    });
    return Map.of("apiVersion", "v1", "kind", "Pod", "metadata", metadata(name, namespace),
        "spec", spec);
  }

  private static Map<String, Object> metadata(String name, String namespace) {
    return Map.of("name", name, "namespace", namespace, "labels", Map.of(
        "app.kubernetes.io/managed-by", "fairing4j", "app.kubernetes.io/component",
        "image-build"));
  }

  /** Waits for the executor to run (it then waits on its stdin); fails fast on a bad image. */
  private static void awaitRunning(KubeRest rest, String namespace, String name,
      PodBuild build, long deadline) {
    while (true) {
      Map<String, Object> pod = rest.find(ResourceRef.PODS, Optional.of(namespace), name)
          .orElseThrow(() -> FairingException.of("build image in the cluster", "the build pod "
              + namespace + "/" + name + " disappeared before it started",
              "check who deletes pods in " + namespace));
      for (Map<String, Object> status : JsonTree.maps(pod, "status", "containerStatuses")) {
        if (!JsonTree.map(status, "state", "running").isEmpty()) {
          return;
        }
        String reason = JsonTree.string(status, "state", "waiting", "reason").orElse("");
        if (reason.equals("ErrImagePull") || reason.equals("ImagePullBackOff")
            || reason.equals("InvalidImageName")) {
          throw FairingException.of("build image in the cluster", "the cluster cannot pull the"
              + " Kaniko executor image " + build.executorImage() + " (" + reason + ": "
              + JsonTree.string(status, "state", "waiting", "message").orElse("") + ")",
              "mirror it into a registry the cluster can pull from, e.g. skopeo copy docker://"
                  + "gcr.io/kaniko-project/executor:v1.23.2 docker://registry.example.com/"
                  + "kaniko-executor:v1.23.2, and pass .executorImage(\"registry.example.com/"
                  + "kaniko-executor:v1.23.2\")");
        }
        if (!JsonTree.map(status, "state", "terminated").isEmpty()) {
          return;  // ended before the context came: its log says why
        }
      }
      pause(namespace, name, deadline, build.timeout(), "start");
    }
  }

  /** Streams the context into the pod's stdin and closes it (stdinOnce: the executor sees EOF). */
  private long send(KubeRest rest, String namespace, String name, PodBuild build) {
    // On the connection's own pool and threads, which its runtime releases.
    ApiClient client = connection.config().clients().get();
    client.setHttpClient(rest.streamingHttpClient());
    Attach.AttachResult attached;
    try {
      // stdin only: an attached stdout nobody reads fills up and stalls the executor, which
      // then stops reading its stdin (its output is followed through the log instead).
      attached = new Attach(client).newConnectionBuilder(namespace, name)
          .setContainer(CONTAINER).setStdin(true).setStdout(false).setStderr(false)
          .setTty(false).connect();
    } catch (ApiException | IOException e) {
      throw FairingException.of("build image in the cluster", "cannot attach to the build pod "
          + namespace + "/" + name + ": " + e.getMessage(), "the build needs the create verb on"
          + " pods/attach in " + namespace + " (docs/rbac.yaml)");
    }
    try (attached) {
      // Kaniko's tar://stdin takes a gzipped tar only ("gzip: invalid header" otherwise).
      CountingStream counted = new CountingStream(attached.getStandardInputStream());
      OutputStream stdin = new GZIPOutputStream(new BufferedOutputStream(counted, 64 << 10),
          64 << 10) {
        {
          def.setLevel(Deflater.BEST_SPEED);
        }
      };
      ContextTar.write(build.files(), stdin);
      stdin.close();
      return counted.count;
    } catch (IOException e) {
      throw FairingException.of("build image in the cluster", "sending the build context to "
          + namespace + "/" + name + " failed: " + e.getMessage(), "run the build again; if it"
          + " fails the same way, check the connection to the API server");
    }
  }

  /** Whether the executor has ended, or does within a few seconds. */
  private static boolean endsSoon(KubeRest rest, String namespace, String name) {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (System.nanoTime() < until) {
      Optional<Map<String, Object>> pod = rest.find(ResourceRef.PODS, Optional.of(namespace),
          name);
      if (pod.isEmpty() || JsonTree.maps(pod.get(), "status", "containerStatuses").stream()
          .anyMatch(status -> !JsonTree.map(status, "state", "terminated").isEmpty())) {
        return true;
      }
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return false;
  }

  /** Follows the executor's log to its end, each line as progress; the last lines kept. */
  private static Deque<String> follow(KubeRest rest, String namespace, String name,
      ProgressListener progress, long deadline) {
    Deque<String> last = new ArrayDeque<>();
    LogConnection log;
    try {
      log = rest.openLog(namespace, name, CONTAINER, new KubeRest.LogQuery(true, false,
          Optional.empty(), Optional.empty()));
    } catch (IOException e) {
      LOG.debug("cannot follow the log of {}/{} ({})", namespace, name, e.toString());
      return last;
    }
    // The log ends when the executor does; a build past its time is cut off here.
    Thread watchdog = new Thread(() -> {
      try {
        TimeUnit.NANOSECONDS.sleep(Math.max(0, deadline - System.nanoTime()));
        log.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "fairing4j-kaniko-deadline");
    watchdog.setDaemon(true);
    watchdog.start();
    try (log) {
      for (Optional<String> line = log.nextLine(); line.isPresent(); line = log.nextLine()) {
        String text = withoutTimestamp(line.get());
        if (last.size() == KEPT_LINES) {
          last.removeFirst();
        }
        last.addLast(text);
        progress.onEvent(new ProgressEvent.Note("kaniko: " + text));
      }
    } catch (IOException e) {
      LOG.debug("the log of {}/{} ended early ({})", namespace, name, e.toString());
    } finally {
      watchdog.interrupt();
    }
    return last;
  }

  private static Map<String, Object> awaitTerminated(KubeRest rest, String namespace,
      String name, PodBuild build, long deadline, Deque<String> last) {
    while (true) {
      Optional<Map<String, Object>> pod = rest.find(ResourceRef.PODS, Optional.of(namespace),
          name);
      if (pod.isEmpty()) {
        throw failure(build, "its pod " + namespace + "/" + name + " was deleted", last);
      }
      for (Map<String, Object> status : JsonTree.maps(pod.get(), "status",
          "containerStatuses")) {
        Map<String, Object> terminated = JsonTree.map(status, "state", "terminated");
        if (!terminated.isEmpty()) {
          return terminated;
        }
      }
      if (System.nanoTime() > deadline) {
        throw failure(build, "did not finish within " + build.timeout().toSeconds() + " s",
            last);
      }
      pause(namespace, name, deadline, build.timeout(), "finish");
    }
  }

  private static void pause(String namespace, String name, long deadline, Duration timeout,
      String what) {
    if (System.nanoTime() > deadline) {
      throw FairingException.of("build image in the cluster", "the build pod " + namespace
          + "/" + name + " did not " + what + " within " + timeout.toSeconds() + " s",
          "look at the pod's events (kubectl describe pod), or give the build more time with"
              + " .timeout(..)");
    }
    try {
      Thread.sleep(300);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw FairingException.of("build image in the cluster", "interrupted while the build pod "
          + namespace + "/" + name + " ran", "run the build again");
    }
  }

  private static FairingException failure(PodBuild build, String what, Deque<String> last) {
    String step = null;
    for (String line : last) {
      int at = line.indexOf("] ");
      String text = at >= 0 ? line.substring(at + 2) : line;
      if (text.matches("(RUN|COPY|ADD|FROM|WORKDIR|ENV|USER) .*")) {
        step = text;
      }
    }
    return FairingException.of("build image in the cluster", "kaniko " + what
        + (step == null ? "" : " at " + step) + " building " + build.destination().reference()
        + "; its last lines:\n  " + String.join("\n  ", last), step != null
        && step.startsWith("RUN ") ? "the RUN command failed in the image: fix it in the"
        + " Dockerfile (the lines above are its output)" : "read the lines above");
  }

  /** Deletes the pod, waiting until it is gone, and the Secret; logs what it cannot delete. */
  private static void remove(KubeRest rest, String namespace, String name,
      Optional<String> secret, Timings timings) {
    try {
      // Gone, not just going: a build that returned leaves nothing running behind it.
      Deletion.deleteAndWait(rest, ResourceRef.PODS, Optional.of(namespace), name,
          Deletion.BACKGROUND, timings);
    } catch (RuntimeException e) {
      LOG.warn("could not delete the build pod {}/{}: {}", namespace, name, e.getMessage());
    }
    secret.ifPresent(s -> {
      try {
        rest.delete(SECRETS, Optional.of(namespace), s, Deletion.BACKGROUND);
      } catch (RuntimeException e) {
        LOG.warn("could not delete the build Secret {}/{}: {}", namespace, s, e.getMessage());
      }
    });
  }

  /** Counts what passes through to the attached stdin. */
  private static final class CountingStream extends java.io.FilterOutputStream {
    long count;

    CountingStream(OutputStream out) {
      super(out);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
      out.write(bytes, offset, length);
      count += length;
    }
  }

  /** The line as Kaniko meant it: without the API's timestamp and the terminal's colours. */
  private static String withoutTimestamp(String line) {
    int space = line.indexOf(' ');
    String text = space > 0 && Character.isDigit(line.charAt(0)) ? line.substring(space + 1)
        : line;
    return text.replaceAll("\u001B\\[[0-9;]*m", "").stripTrailing();
  }
}
