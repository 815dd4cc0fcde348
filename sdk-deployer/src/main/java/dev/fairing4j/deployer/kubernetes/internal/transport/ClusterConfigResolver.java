package dev.fairing4j.deployer.kubernetes.internal.transport;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.internal.Validators;
import dev.fairing4j.deployer.job.internal.JsonTree;
import io.kubernetes.client.openapi.ApiClient;
import io.kubernetes.client.util.ClientBuilder;
import io.kubernetes.client.util.KubeConfig;
import io.kubernetes.client.util.credentials.AccessTokenAuthentication;
import io.kubernetes.client.util.credentials.TokenFileAuthentication;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the cluster kubectl would use: the files given, else every file of {@code KUBECONFIG}
 * merged, else {@code ~/.kube/config}, else the pod's service account (in-cluster); then picks the
 * context and namespace. Only files are read here: a wrong path, a broken file or an unknown
 * context fails before any request.
 */
public final class ClusterConfigResolver {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterConfigResolver.class);
  /**
   * A request that gets no byte for this long is given up and, where that is safe, sent again
   * ({@link KubeRest}); watches and followed logs set their own.
   */
  static final Duration READ_TIMEOUT = Duration.ofSeconds(30);
  /** A server that does not accept a connection in this long is tried again or reported. */
  static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
  private static final String DEFAULT_NAMESPACE = "default";

  private ClusterConfigResolver() {}

  /**
   * Whether {@code env} offers any configuration for {@code settings}: files or a context named,
   * {@code KUBECONFIG} set, {@code ~/.kube/config} present, or a pod's service account. When it
   * does, {@link #resolve} reports every mistake in it.
   */
  public static boolean configured(ClusterSettings settings, KubeEnvironment env) {
    return !settings.kubeconfigs().isEmpty() || settings.context().isPresent()
        || env.variable("KUBECONFIG").isPresent()
        || Files.isRegularFile(env.home().resolve(".kube").resolve("config"))
        || env.variable("KUBERNETES_SERVICE_HOST").isPresent();
  }

  /** Resolves {@code settings} in {@code env}. */
  public static ClusterConfig resolve(ClusterSettings settings, KubeEnvironment env) {
    if (!settings.kubeconfigs().isEmpty()) {
      for (Path file : settings.kubeconfigs()) {
        if (!Files.isRegularFile(file)) {
          throw InvalidInputException.of("kubeconfig", "file " + file + " does not exist",
              "pass the path of an existing kubeconfig file");
        }
      }
      return fromKubeconfig(settings, KubeconfigMerger.merge(settings.kubeconfigs()));
    }
    Optional<String> variable = env.variable("KUBECONFIG");
    if (variable.isPresent()) {
      List<Path> listed = new ArrayList<>();
      for (String part : variable.get().split(File.pathSeparator)) {
        if (!part.isBlank()) {
          listed.add(expandHome(part.trim(), env.home()));
        }
      }
      // Like kubectl, files of KUBECONFIG that do not exist are skipped.
      List<Path> existing = listed.stream().filter(Files::isRegularFile).toList();
      if (existing.isEmpty()) {
        throw InvalidInputException.of("KUBECONFIG",
            "none of its files exists: " + variable.get(),
            "point KUBECONFIG at your kubeconfig file(s), or unset it to use ~/.kube/config");
      }
      return fromKubeconfig(settings, KubeconfigMerger.merge(existing));
    }
    Path home = env.home().resolve(".kube").resolve("config");
    if (Files.isRegularFile(home)) {
      return fromKubeconfig(settings, KubeconfigMerger.merge(List.of(home)));
    }
    if (env.variable("KUBERNETES_SERVICE_HOST").isPresent()
        && Files.isRegularFile(env.serviceAccountDir().resolve("token"))) {
      return inCluster(settings, env);
    }
    throw InvalidInputException.of("kubeconfig",
        "no Kubernetes configuration found: KUBECONFIG is unset, " + home
            + " does not exist and this is not a pod with a service account",
        "create a kubeconfig (e.g. with your cloud's get-credentials command or 'kind create"
            + " cluster'), or pass one with Clusters.kubernetes().kubeconfig(path)");
  }

  private static ClusterConfig fromKubeconfig(ClusterSettings settings, MergedKubeconfig config) {
    String files = config.describeFiles();
    String contextName = settings.context().or(config::currentContext).orElseThrow(
        () -> InvalidInputException.of("context",
            "no context chosen and no current-context set in " + files
                + "; available contexts: " + KubeconfigMerger.available(config),
            "choose one with .context(\"name\") or 'kubectl config use-context NAME'"));
    Map<String, Object> context = config.contexts().get(contextName);
    if (context == null) {
      throw InvalidInputException.of("context",
          "context '" + contextName + "' is not defined in " + files
              + "; available contexts: " + KubeconfigMerger.available(config),
          "use one of the available contexts, or add it with 'kubectl config set-context'");
    }
    String clusterName = JsonTree.text(context, "context", "cluster").orElseThrow(
        () -> InvalidInputException.of("context",
            "context '" + contextName + "' in " + files + " names no cluster",
            "set its cluster with 'kubectl config set-context " + contextName
                + " --cluster=NAME'"));
    Map<String, Object> cluster = config.clusters().get(clusterName);
    if (cluster == null) {
      throw InvalidInputException.of("context",
          "context '" + contextName + "' refers to cluster '" + clusterName
              + "', which is not defined in " + files + "; defined clusters: "
              + (config.clusters().isEmpty() ? "none" : String.join(", ",
                  config.clusters().keySet())),
          "add the cluster with 'kubectl config set-cluster " + clusterName
              + " --server=URL', or fix the context");
    }
    String server = JsonTree.text(cluster, "cluster", "server").orElseThrow(
        () -> InvalidInputException.of("context",
            "cluster '" + clusterName + "' (context '" + contextName + "') in " + files
                + " has no server URL",
            "set it with 'kubectl config set-cluster " + clusterName + " --server=URL'"));
    Optional<String> userName = JsonTree.text(context, "context", "user");
    Map<String, Object> user = userName.map(config.users()::get).orElse(null);
    if (userName.isPresent() && user == null) {
      throw InvalidInputException.of("context",
          "context '" + contextName + "' refers to user '" + userName.get()
              + "', which is not defined in " + files,
          "add the user with 'kubectl config set-credentials " + userName.get()
              + "', or fix the context");
    }
    Redactor redactor = Redactor.ofKubeconfigUsers(user == null ? List.of() : List.of(user));
    Optional<String> contextNamespace = JsonTree.text(context, "context", "namespace");
    if (settings.namespace().isEmpty() && contextNamespace.isPresent()) {
      // A namespace no server accepts would otherwise fail only at the submission, after a push.
      try {
        Validators.dns1123Label("namespace", contextNamespace.get());
      } catch (InvalidInputException e) {
        throw InvalidInputException.of("context",
            "context '" + contextName + "' in " + files + " names namespace '"
                + contextNamespace.get() + "', which is not a valid namespace name (lower-case"
                + " letters, digits and '-', at most 63)",
            "fix it with 'kubectl config set-context " + contextName + " --namespace=NAME', or"
                + " choose one with .namespace(\"name\")");
      }
    }
    String namespace = settings.namespace().or(() -> contextNamespace).orElse(DEFAULT_NAMESPACE);
    String source = "kubeconfig " + files;
    Supplier<ApiClient> clients = () -> buildFromKubeconfig(contextName, context, cluster, user,
        files, redactor);
    LOG.debug("Kubernetes context {} (cluster {}, server {}) from {}", contextName, clusterName,
        withoutUserInfo(server), files);
    return new ClusterConfig(source, Optional.of(contextName), withoutUserInfo(server), namespace,
        redactor, clients);
  }

  private static ApiClient buildFromKubeconfig(String contextName, Map<String, Object> context,
      Map<String, Object> cluster, Map<String, Object> user, String files, Redactor redactor) {
    ArrayList<Object> contexts = new ArrayList<>(List.of(context));
    ArrayList<Object> clusters = new ArrayList<>(List.of(cluster));
    ArrayList<Object> users = new ArrayList<>();
    if (user != null) {
      users.add(user);
    }
    KubeConfig kubeConfig = new KubeConfig(contexts, clusters, users);
    kubeConfig.setContext(contextName);
    try {
      ApiClient client = ClientBuilder.kubeconfig(kubeConfig).setReadTimeout(READ_TIMEOUT).build()
          .setConnectTimeout((int) CONNECT_TIMEOUT.toMillis());
      // client-java uses one credential of a user (a client certificate before a token), while
      // kubectl sends all it has: a user with both would be anonymous to a server that does not
      // check client certificates. Seen against a real API server; the mock ignored credentials.
      Optional<String> token = user == null ? Optional.empty()
          : JsonTree.text(user, "user", "token").filter(t -> !t.isBlank());
      boolean clientCertificate = user != null
          && (JsonTree.text(user, "user", "client-certificate-data").isPresent()
              || JsonTree.text(user, "user", "client-certificate").isPresent());
      if (token.isPresent() && clientCertificate) {
        new AccessTokenAuthentication(token.get()).provide(client);
      }
      return client;
    } catch (IOException | RuntimeException e) {
      // The cause is dropped on purpose: client-java's messages may quote credential data.
      throw InvalidInputException.of("context",
          "cannot use the credentials of context '" + contextName + "' from " + files + ": "
              + e.getClass().getSimpleName() + describe(e, redactor),
          "check the context's certificate and key files or data, or refresh the credentials"
              + " (e.g. 'kubectl get ns --context " + contextName + "')");
    }
  }

  private static ClusterConfig inCluster(ClusterSettings settings, KubeEnvironment env) {
    String host = env.variable("KUBERNETES_SERVICE_HOST").orElseThrow();
    String port = env.variable("KUBERNETES_SERVICE_PORT").orElse("443");
    // An IPv6 service address needs brackets in a URL.
    String server = "https://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    Path dir = env.serviceAccountDir();
    Path token = dir.resolve("token");
    Path ca = dir.resolve("ca.crt");
    Redactor redactor = Redactor.of(Set.of(readQuietly(token).trim()));
    String namespace = settings.namespace()
        .or(() -> Optional.of(readQuietly(dir.resolve("namespace")).trim())
            .filter(s -> !s.isEmpty()))
        .orElse(DEFAULT_NAMESPACE);
    if (settings.context().isPresent()) {
      throw InvalidInputException.of("context",
          "context '" + settings.context().get() + "' was asked for, but no kubeconfig exists"
              + " (running in-cluster with the pod's service account)",
          "drop .context(..), or pass a kubeconfig with .kubeconfig(path)");
    }
    Supplier<ApiClient> clients = () -> {
      try {
        ClientBuilder builder = new ClientBuilder().setBasePath(server)
            .setAuthentication(new TokenFileAuthentication(token.toString()))
            .setReadTimeout(READ_TIMEOUT);
        if (Files.isRegularFile(ca)) {
          builder.setCertificateAuthority(Files.readAllBytes(ca));
        }
        return builder.build().setConnectTimeout((int) CONNECT_TIMEOUT.toMillis());
      } catch (IOException | RuntimeException e) {
        throw InvalidInputException.of("in-cluster configuration",
            "cannot use the service account in " + dir + ": " + e.getClass().getSimpleName()
                + describe(e, redactor),
            "check the pod's service account mount (automountServiceAccountToken)");
      }
    };
    return new ClusterConfig("in-cluster service account " + dir, Optional.empty(), server,
        namespace, redactor, clients);
  }

  private static String describe(Exception e, Redactor redactor) {
    String message = e.getMessage();
    return message == null || message.isBlank() ? "" : ": " + redactor.redact(message);
  }

  private static String readQuietly(Path file) {
    try {
      return Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "";
    }
  }

  private static Path expandHome(String path, Path home) {
    if (path.equals("~")) {
      return home;
    }
    if (path.startsWith("~/")) {
      return home.resolve(path.substring(2));
    }
    return Path.of(path);
  }

  /** The URL without {@code user:password@}, which must not reach a message. */
  static String withoutUserInfo(String server) {
    return server.replaceFirst("^([a-zA-Z][a-zA-Z0-9+.-]*://)[^/@]*@", "$1");
  }
}
