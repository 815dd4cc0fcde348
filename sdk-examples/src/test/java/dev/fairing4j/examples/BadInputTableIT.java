package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.fairing4j.builder.Builders;
import dev.fairing4j.builder.DockerfileTool;
import dev.fairing4j.builder.JibImageBuilder;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.FairingException;
import dev.fairing4j.core.ImageBuilder;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.Pipeline;
import dev.fairing4j.core.Preprocessor;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.testing.KubeApiServer.User;
import dev.fairing4j.core.testing.RealKubernetes;
import dev.fairing4j.core.testing.RegistryExtension;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.Mutators;
import dev.fairing4j.deployer.job.JobDeployer;
import dev.fairing4j.deployer.job.ReplicaType;
import dev.fairing4j.deployer.job.RestartPolicy;
import dev.fairing4j.deployer.kubernetes.KubernetesCluster;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Invalid input at every stage, through the front door: each case builds a pipeline that is valid
 * except for one field, runs it against a real registry and a real API server, and expects a
 * {@link FairingException} that names the field and says how to fix it, before a single request
 * reaches either server. A validation that slipped past the pipeline's checks would show up as a
 * build (registry requests) or a submission (API requests), so the request assertions are what
 * make "validation before any network call" a tested promise rather than a comment.
 *
 * <p>Unknown git refs are checked against a real repository through {@code file://}: resolving
 * a ref needs the git server, which here is neither the registry nor the API server, so the
 * no-request assertions still hold. Two mistakes only a server can see are not in the table: a
 * base image that does not exist (the registry must be asked; JibImageBuilderFailuresIT shows it
 * fails before any upload) and a job name already taken (the API server must be asked;
 * KubernetesSubmitIT shows the 409 path creates nothing).
 */
@Timeout(60)
class BadInputTableIT {
  @RegisterExtension static final RegistryExtension REGISTRY = RegistryExtension.plain();
  @RegisterExtension static final RealKubernetes K8S = RealKubernetes.shared();

  @TempDir static Path dir;
  private static Path train;
  private static Path gitRepo;

  /**
   * One invalid input: the field the error must name, the run that must fail before any request,
   * and any further text the message must hold (a cap, a value).
   */
  record Case(String name, String field, Function<Env, Object> run, List<String> mentions) {}

  /** docs/bad-input.md: every case's mistake, field and message, as a user reads them. */
  private static final Path PAGE = Path.of("..", "docs", "bad-input.md");
  /** The message of each case that ran, by case name; one entry per case of {@link #cases()}. */
  private static final Map<String, String> MESSAGES = new java.util.concurrent.ConcurrentHashMap<>();

  /** What a case may build on: a valid baseline for every stage and scratch files. */
  record Env(Path dir, Path train, Path gitRepo) {
    Preprocessor python() {
      return Preprocessors.python(train);
    }

    JibImageBuilder builder() {
      // the base need not exist: every case fails before the build would pull it
      return Builders.jib(REGISTRY.hostPort() + "/base/python:3.11").pushTo(target());
    }

    String target() {
      return REGISTRY.hostPort() + "/team/bad-input";
    }

    KubernetesCluster cluster() {
      // no case may reach the server, so the namespace need not exist
      return Clusters.kubernetes().kubeconfig(K8S.server().kubeconfig(User.SDK, "bad-input"));
    }

    /** A pipeline valid in every stage but the deployer given. */
    Object run(JobDeployer<?> deployer) {
      return run(python(), builder(), deployer);
    }

    Object run(Preprocessor preprocessor) {
      return run(preprocessor, builder(), Deployers.pyTorchJob("bad-input").on(cluster()));
    }

    Object run(ImageBuilder builder) {
      return run(python(), builder, Deployers.pyTorchJob("bad-input").on(cluster()));
    }

    /** The baseline pipeline with a Dockerfile of {@code text} beside the script. */
    Object runDockerfile(String text) {
      return run(Builders.dockerfile(write("Dockerfile", text)).pushTo(target()));
    }

    Object run(Preprocessor preprocessor, ImageBuilder builder, JobDeployer<?> deployer) {
      Pipeline pipeline = Fairing.pipeline().progress(ProgressListener.NONE)
          .preprocessor(preprocessor).deployer(deployer);
      return (builder == null ? pipeline : pipeline.builder(builder)).run();
    }

    Object runOn(KubernetesCluster cluster) {
      return run(Deployers.pyTorchJob("bad-input").workers(1).on(cluster));
    }

    /**
     * Runs the baseline pipeline on {@code Clusters.kubernetes()} in a child JVM whose environment
     * has {@code env} (and no KUBECONFIG or in-cluster variables unless given), and rethrows its
     * {@link InvalidInputException} here, so that kubectl's default places are read as a user's
     * JVM reads them. Any other outcome fails the case.
     */
    Object inChildJvm(Map<String, String> env) {
      try {
        ProcessBuilder builder = new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp", System.getProperty("java.class.path"), BadInputChild.class.getName(),
            REGISTRY.hostPort(), train().toString())
            .redirectErrorStream(true);
        builder.environment().remove("KUBECONFIG");
        builder.environment().remove("KUBERNETES_SERVICE_HOST");
        builder.environment().put("HOME", dir().resolve("empty-home").toString());
        builder.environment().putAll(env);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(),
            StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 3) {
          throw new AssertionError("the child JVM did not fail with InvalidInputException: "
              + output);
        }
        // The child's exception, rebuilt from the parts it printed: same field, problem, fix.
        throw InvalidInputException.of(line(output, "FIELD"), line(output, "PROBLEM"),
            line(output, "FIX"));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }

    private static String line(String output, String key) {
      return output.lines().filter(l -> l.startsWith(key + "=")).findFirst()
          .map(l -> l.substring(key.length() + 1).replace("\\n", "\n"))
          .orElseThrow(() -> new AssertionError("no " + key + " from the child JVM: " + output));
    }

    /** A home directory whose {@code .kube/config} holds {@code kubeconfig}. */
    String homeWith(String kubeconfig) {
      String home = "home-" + Integer.toHexString(kubeconfig.hashCode());
      write(home + "/.kube/config", kubeconfig);
      return dir.resolve(home).toString();
    }

    String read(Path file) {
      try {
        return Files.readString(file);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    Path write(String name, String content) {
      try {
        Path file = dir.resolve(name);
        Files.createDirectories(file.getParent());
        return Files.writeString(file, content);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  @BeforeAll
  static void files() throws IOException, GitAPIException {
    train = Files.writeString(dir.resolve("train.py"), "print('training')\n");
    gitRepo = Files.createDirectories(dir.resolve("repo"));
    try (Git git = Git.init().setDirectory(gitRepo.toFile()).setInitialBranch("main").call()) {
      Files.writeString(gitRepo.resolve("train.py"), "print('from git')\n");
      git.add().addFilepattern("train.py").call();
      // A fixed time, so the commit's id (which an error names) is the same on every run.
      org.eclipse.jgit.lib.PersonIdent seed = new org.eclipse.jgit.lib.PersonIdent("t",
          "t@example.com", java.time.Instant.parse("2026-01-01T00:00:00Z"), java.time.ZoneOffset.UTC);
      git.commit().setMessage("seed").setAuthor(seed).setCommitter(seed).setSign(false).call();
      git.tag().setName("v1").call();
    }
  }

  static Stream<Arguments> cases() {
    return Stream.of(
        // ---- names -------------------------------------------------------------------------
        c("job name with capitals", "name",
            e -> e.run(Deployers.pyTorchJob("MNIST").on(e.cluster()))),
        c("job name with an underscore", "name",
            e -> e.run(Deployers.pyTorchJob("mnist_ddp").on(e.cluster()))),
        c("job name too long (the message states the cap)", "name",
            e -> e.run(Deployers.pyTorchJob("a".repeat(80)).on(e.cluster())), "the cap is 63"),
        c("job name empty", "name", e -> e.run(Deployers.batchJob("").on(e.cluster()))),
        c("TFJob name too long", "name",
            e -> e.run(Deployers.tfJob("t".repeat(70)).on(e.cluster())), "the cap is"),
        c("job namespace with capitals", "namespace",
            e -> e.run(Deployers.pyTorchJob("ok").namespace("Kubeflow").on(e.cluster()))),
        c("job namespace with an underscore", "namespace",
            e -> e.run(Deployers.pyTorchJob("ok").namespace("team_a").on(e.cluster()))),
        c("cluster namespace too long", "namespace",
            e -> e.runOn(e.cluster().namespace("n".repeat(64)))),
        c("claim name with capitals", "claim",
            e -> e.run(Deployers.pyTorchJob("ok").on(e.cluster())
                .mutate(Mutators.pvc("Models-Claim", "/opt/models")))),
        c("claim name with an underscore", "claim",
            e -> e.run(Deployers.pyTorchJob("ok").on(e.cluster())
                .mutate(Mutators.pvc("models_claim", "/opt/models")))),
        c("claim name too long", "claim",
            e -> e.run(Deployers.pyTorchJob("ok").on(e.cluster())
                .mutate(Mutators.pvc("c".repeat(254), "/opt/models")))),
        c("secret name with an underscore in envFromSecret", "secret",
            e -> e.run(Deployers.pyTorchJob("ok").on(e.cluster())
                .mutate(Mutators.envFromSecret("TOKEN", "api_token", "value")))),
        // ---- quantities ----------------------------------------------------------------------
        c("memory 4Gx", "memory",
            e -> e.run(Deployers.pyTorchJob("ok").on(e.cluster())
                .mutate(Mutators.resources("2", "4Gx")))),
        c("memory 4GB", "memory",
            e -> e.run(Deployers.pyTorchJob("ok").on(e.cluster())
                .mutate(Mutators.resources("2", "4GB")))),
        c("cpu -1", "cpu",
            e -> e.run(Deployers.pyTorchJob("ok").on(e.cluster())
                .mutate(Mutators.resources("-1", "4Gi")))),
        c("cpu empty", "cpu",
            e -> e.run(Deployers.pyTorchJob("ok").on(e.cluster())
                .mutate(Mutators.resources("", "4Gi")))),
        c("gpus negative", "gpus",
            e -> e.run(Deployers.pyTorchJob("ok").on(e.cluster())
                .mutate(Mutators.gpus(-1)))),
        c("shared memory size not a quantity", "sharedMemory",
            e -> e.run(Deployers.pyTorchJob("ok").on(e.cluster())
                .mutate(Mutators.sharedMemory("lots")))),
        // ---- replica counts ------------------------------------------------------------------
        c("negative PyTorchJob workers", "workers",
            e -> e.run(Deployers.pyTorchJob("ok").workers(-1).on(e.cluster()))),
        c("negative TFJob workers", "workers",
            e -> e.run(Deployers.tfJob("ok").workers(-2).on(e.cluster()))),
        c("zero replicas on a batch Job", "replicas",
            e -> e.run(Deployers.batchJob("ok").replicas(0).on(e.cluster()))),
        c("negative parameter servers", "ps",
            e -> e.run(Deployers.tfJob("ok").ps(-1).on(e.cluster()))),
        // ---- contradictory options -----------------------------------------------------------
        c("two chiefs on a TFJob", "chief",
            e -> e.run(Deployers.tfJob("ok").chief(2).on(e.cluster()))),
        c("two evaluators on a TFJob", "evaluator",
            e -> e.run(Deployers.tfJob("ok").evaluator(2).on(e.cluster()))),
        c("nprocPerNode abc", "nprocPerNode",
            e -> e.run(Deployers.pyTorchJob("ok").nprocPerNode("abc").on(e.cluster()))),
        c("elastic min above max", "elastic",
            e -> e.run(Deployers.pyTorchJob("ok").workers(2).elastic(3, 1).on(e.cluster()))),
        c("restart policy Always on a batch Job", "restartPolicy",
            e -> e.run(Deployers.batchJob("ok").restartPolicy(RestartPolicy.ALWAYS).on(e.cluster()))),
        c("restart policy ExitCode on a batch Job", "restartPolicy",
            e -> e.run(Deployers.batchJob("ok").restartPolicy(RestartPolicy.EXIT_CODE)
                .on(e.cluster()))),
        c("negative backoffLimit", "backoffLimit",
            e -> e.run(Deployers.batchJob("ok").backoffLimit(-1).on(e.cluster()))),
        c("zero activeDeadlineSeconds", "activeDeadlineSeconds",
            e -> e.run(Deployers.batchJob("ok").activeDeadlineSeconds(0).on(e.cluster()))),
        // ---- unknown replica types for a kind ------------------------------------------------
        c("mutate targeting PS on a PyTorchJob", "mutate",
            e -> e.run(Deployers.pyTorchJob("ok").on(e.cluster())
                .mutate(Mutators.gpus(1), ReplicaType.PS))),
        c("mutate targeting Master on a TFJob", "mutate",
            e -> e.run(Deployers.tfJob("ok").on(e.cluster())
                .mutate(Mutators.gpus(1), ReplicaType.MASTER))),
        c("restart policy for Evaluator on a PyTorchJob", "restartPolicy",
            e -> e.run(Deployers.pyTorchJob("ok").on(e.cluster())
                .restartPolicy(ReplicaType.EVALUATOR, RestartPolicy.NEVER))),
        // ---- pod settings ----------------------------------------------------------------------
        c("env var name with a pasted newline", "env",
            e -> e.run(Deployers.pyTorchJob("ok").env("EPOCHS\n", "3").on(e.cluster()))),
        c("env var name with a control character for one replica type", "env",
            e -> e.run(Deployers.pyTorchJob("ok").on(e.cluster())
                .env("EPO\tCHS", "3", ReplicaType.MASTER))),
        c("env var name with '=' from a Secret", "env",
            e -> e.run(Deployers.pyTorchJob("ok").on(e.cluster())
                .mutate(Mutators.envFromSecret("A=B", "creds", "key")))),
        c("label key with a space", "label",
            e -> e.run(Deployers.pyTorchJob("ok").label("team name", "a").on(e.cluster()))),
        c("label key with an over-long prefix", "label",
            e -> e.run(Deployers.pyTorchJob("ok").label("p".repeat(254) + "/team", "a")
                .on(e.cluster()))),
        c("pod label value too long", "label",
            e -> e.run(Deployers.pyTorchJob("ok").on(e.cluster())
                .mutate(Mutators.labels(Map.of("team", "v".repeat(64)))))),
        c("annotation key invalid", "annotation",
            e -> e.run(Deployers.pyTorchJob("ok").annotation("-bad", "a").on(e.cluster()))),
        c("relative PVC mount path", "mountPath",
            e -> e.run(Deployers.pyTorchJob("ok").on(e.cluster())
                .mutate(Mutators.pvc("models", "opt/models")))),
        c("relative host path", "hostPath",
            e -> e.run(Deployers.pyTorchJob("ok").on(e.cluster())
                .mutate(Mutators.hostPath("data", "/data")))),
        c("toleration effect unknown", "effect",
            e -> e.run(Deployers.pyTorchJob("ok").on(e.cluster())
                .mutate(Mutators.toleration("gpu", "yes", "Sometimes")))),
        // ---- files -----------------------------------------------------------------------------
        c("missing entry script", "entry",
            e -> e.run(Preprocessors.python(e.dir().resolve("missing.py")))),
        c("entry is a directory (unreadable as a file)", "entry",
            e -> e.run(Preprocessors.python(e.dir().resolve("repo")))),
        c("missing extra file", "files",
            e -> e.run(Preprocessors.python(e.train()).files(e.dir().resolve("nope.bin")))),
        c("missing requirements.txt", "requirements",
            e -> e.run(Preprocessors.python(e.train())
                .requirements(e.dir().resolve("requirements-missing.txt")))),
        c("requirements given as a directory", "requirements",
            e -> e.run(Preprocessors.python(e.train()).requirements(e.dir().resolve("repo")))),
        c("entry outside the context", "entry",
            e -> e.run(Preprocessors.python(e.train())
                .baseDir(e.dir().resolve("repo")))),
        c("empty inline source", "source",
            e -> e.run(Preprocessors.source("train.py", "   \n"))),
        c("inline source named with an absolute path", "name",
            e -> e.run(Preprocessors.source("/app/train.py", "print('hi')\n"))),
        c("inline source that names a missing extra file", "files",
            e -> e.run(Preprocessors.source("train.py", "print('hi')\n").baseDir(e.dir())
                .files(e.dir().resolve("nope.bin")))),
        c("function source with no function in it", "source",
            e -> e.run(Preprocessors.function("print('hi')\n", Map.of()))),
        c("function argument the function does not take", "arguments",
            e -> e.run(Preprocessors.function("def train(lr):\n    print(lr)\n",
                Map.of("learning_rate", 0.1))), "learning_rate", "it takes lr"),
        c("missing predictor file", "predictor",
            e -> e.run(Preprocessors.predictor(e.dir().resolve("missing_predictor.py")))),
        c("predictor that is not a .py file", "predictor",
            e -> e.run(Preprocessors.predictor(e.write("predictor.txt", "class M: pass\n"))),
            "is not a .py file"),
        c("predictor under torchrun", "torchrun",
            e -> e.run(Preprocessors.predictor(e.train()).torchrun()), "one process"),
        c("predictor class name that is not an identifier", "className",
            e -> e.run(Preprocessors.predictor(e.train()).className("Mnist Model"))),
        c("model name that cannot go in a URL", "modelName",
            e -> e.run(Preprocessors.predictor(e.train()).modelName("MNIST/v1")), "lower-case"),
        // ---- notebooks ----------------------------------------------------------------------
        c("notebook that is not JSON", "notebook",
            e -> e.run(Preprocessors.notebook(e.write("broken.ipynb", "{\"cells\": [")))),
        c("notebook whose cells are not a list", "notebook",
            e -> e.run(Preprocessors.notebook(e.write("nocells.ipynb",
                "{\"cells\": 3, \"nbformat\": 4, \"nbformat_minor\": 5, \"metadata\": {}}")))),
        c("missing notebook", "notebook",
            e -> e.run(Preprocessors.notebook(e.dir().resolve("missing.ipynb")))),
        // ---- git ----------------------------------------------------------------------------
        c("unknown git branch", "branch",
            e -> e.run(Preprocessors.git(e.gitRepo().toUri().toString()).branch("no-such-branch")
                .entry("train.py"))),
        c("unknown git tag", "tag",
            e -> e.run(Preprocessors.git(e.gitRepo().toUri().toString()).tag("v9")
                .entry("train.py"))),
        c("unknown git commit", "commit",
            e -> e.run(Preprocessors.git(e.gitRepo().toUri().toString())
                .commit("0123456789abcdef0123456789abcdef01234567").entry("train.py"))),
        c("git entry escaping the checkout", "entry",
            e -> e.run(Preprocessors.git(e.gitRepo().toUri().toString()).entry("../train.py"))),
        c("git entry missing from the checkout", "entry",
            e -> e.run(Preprocessors.git(e.gitRepo().toUri().toString()).entry("nope.py"))),
        c("git entry that is no path", "entry",
            e -> e.run(Preprocessors.git(e.gitRepo().toUri().toString()).entry("train\0.py"))),
        // ---- image references ---------------------------------------------------------------
        c("base image with capitals in the repository", "baseImage",
            e -> e.run(Builders.jib("Python:3.11").pushTo(e.target()))),
        c("base image with an empty tag", "baseImage",
            e -> e.run(Builders.jib("python::3.11").pushTo(e.target()))),
        c("base image with a malformed digest", "baseImage",
            e -> e.run(Builders.jib("python@sha256:xyz").pushTo(e.target()))),
        c("target repository with capitals", "pushTo",
            e -> e.run(e.builder().pushTo(REGISTRY.hostPort() + "/Team/App"))),
        c("target with a bad port", "pushTo",
            e -> e.run(e.builder().pushTo("127.0.0.1:port/team/app"))),
        c("target without a registry host (would mean Docker Hub)", "pushTo",
            e -> e.run(e.builder().pushTo("team/app")), "docker.io/team/app"),
        c("target on an IPv6 address (Jib cannot use it)", "pushTo",
            e -> e.run(e.builder().pushTo("[::1]:5000/team/app"))),
        c("base-layer cache that is a file", "baseLayerCache",
            e -> e.run(e.builder().baseLayerCache(e.write("cache-file", "not a directory")))),
        c("tar target that is a directory", "toTar",
            e -> e.run(e.builder().toTar(e.dir()))),
        c("target tag with a space", "tags",
            e -> e.run(e.builder().tags("bad tag"))),
        // ---- Dockerfiles ---------------------------------------------------------------------
        c("Dockerfile that does not exist", "dockerfile",
            e -> e.run(Builders.dockerfile(e.dir().resolve("docker/Dockerfile"))
                .pushTo(e.target())), "does not exist"),
        c("Dockerfile with a RUN step, told to build with Jib alone", "dockerfile",
            e -> e.run(Builders.dockerfile(e.write("Dockerfile", "FROM " + REGISTRY.hostPort()
                + "/base/python:3.11\nCOPY train.py /app/\nRUN pip install --no-index numpy\n"
                + "CMD [\"python\", \"/app/train.py\"]\n")).tool(DockerfileTool.JIB)
                .pushTo(e.target())), "line 3: RUN pip install", "apt-get install buildah"),
        c("Dockerfile with a RUN step on a machine without buildah or podman", "dockerfile",
            e -> e.inChildJvm(Map.of("PATH", "/nowhere", "FAIRING4J_BAD_INPUT", "dockerfile-run",
                "KUBECONFIG", e.cluster().kubeconfigFiles().get(0).toString())),
            "neither buildah nor podman is on PATH", "apt-get install buildah"),
        c("Dockerfile COPY of a file outside the context", "dockerfile",
            e -> e.runDockerfile("FROM " + REGISTRY.hostPort() + "/base/python:3.11\n"
                + "COPY ../secrets.env /app/\n"), "line 2", "outside the build context"),
        c("Dockerfile COPY of a file the context lacks", "dockerfile",
            e -> e.runDockerfile("FROM " + REGISTRY.hostPort() + "/base/python:3.11\n"
                + "COPY trian.py /app/\n"), "'trian.py' is not in the build context"),
        c("Dockerfile FROM a malformed reference", "dockerfile",
            e -> e.runDockerfile("FROM Python:3.11\nCOPY train.py /app/\n"), "line 1"),
        c("build argument no ARG declares", "buildArg",
            e -> e.run(Builders.dockerfile(e.write("Dockerfile", "ARG BASE\nFROM $BASE\n"
                + "COPY train.py /app/\n")).buildArg("BASE", "python:3.11")
                .buildArg("EPOCS", "3").pushTo(e.target())), "EPOCS"),
        c("in-cluster build without a target", "pushTo",
            e -> e.run(Builders.inCluster(e.cluster()).base("python:3.11"))),
        c("in-cluster build with nothing to build from", "inCluster",
            e -> e.run(Builders.inCluster(e.cluster()).pushTo(e.target())),
            ".dockerfile(Path.of(\"Dockerfile\"))"),
        // ---- pipeline shape -----------------------------------------------------------------
        c("no preprocessor", "preprocessor",
            e -> Fairing.pipeline().builder(e.builder())
                .deployer(Deployers.pyTorchJob("ok").on(e.cluster())).run()),
        c("no builder for a Kubernetes job", "builder",
            e -> e.run(e.python(), null, Deployers.pyTorchJob("ok").on(e.cluster()))),
        c("deployer without a cluster (run() would build and push first)", "cluster",
            e -> e.run(Deployers.pyTorchJob("ok")), ".on(Clusters.kubernetes())"),
        c("neither a builder nor a cluster: the cluster is named, not the builder", "cluster",
            e -> e.run(e.python(), null, Deployers.pyTorchJob("ok"))),
        // ---- kubeconfig ---------------------------------------------------------------------
        c("kubeconfig that is broken YAML", "kubeconfig",
            e -> e.runOn(Clusters.kubernetes().kubeconfig(
                e.write("broken-kubeconfig", "apiVersion: v1\nclusters: [\n  - {name: x")))),
        c("kubeconfig that does not exist", "kubeconfig",
            e -> e.runOn(Clusters.kubernetes().kubeconfig(e.dir().resolve("no-kubeconfig")))),
        c("unknown kubeconfig context", "context",
            e -> e.runOn(e.cluster().context("no-such-context"))),
        c("kubeconfig context whose namespace is no namespace name", "context",
            e -> e.runOn(Clusters.kubernetes().kubeconfig(e.write("bad-ns-kubeconfig",
                e.read(e.cluster().kubeconfigFiles().get(0))
                    .replace("namespace: bad-input", "namespace: Team_A")))), "Team_A"),
        // ---- kubectl's own places, read in a JVM with that environment ---------------------
        c("KUBECONFIG naming a file that does not exist", "KUBECONFIG",
            e -> e.inChildJvm(Map.of("KUBECONFIG", e.dir().resolve("gone.yaml").toString()))),
        c("~/.kube/config that is broken YAML", "kubeconfig",
            e -> e.inChildJvm(Map.of("HOME", e.homeWith("apiVersion: v1\nusers: [\n")))),
        c("no kubeconfig anywhere and not in a pod", "kubeconfig",
            e -> e.inChildJvm(Map.of("HOME", e.dir().resolve("empty-home").toString())),
            "Clusters.kubernetes().kubeconfig(path)"));
  }

  private static Arguments c(String name, String field, Function<Env, Object> run,
      String... mentions) {
    return Arguments.of(Named.of(name, new Case(name, field, run, List.of(mentions))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void failsBeforeAnyRequestNamingTheFieldAndTheFix(Case bad) {
    REGISTRY.clearRequests();

    Throwable thrown = catchThrowable(() -> bad.run().apply(new Env(dir, train, gitRepo)));

    assertThat(thrown).as("the failure").isInstanceOf(FairingException.class);
    assertThat(thrown.getMessage()).as("the message names the field and the fix")
        .contains(bad.field()).contains("fix:");
    bad.mentions().forEach(text -> assertThat(thrown.getMessage()).contains(text));
    if (thrown instanceof InvalidInputException invalid) {
      assertThat(invalid.field()).as("the exception's field").contains(bad.field());
      assertThat(invalid.fix()).as("the fix").isNotBlank();
    }
    assertThat(REGISTRY.requests()).as("requests that reached the registry").isEmpty();
    // the real API server's audit log, from the start of this case
    assertThat(K8S.requestLines()).as("requests that reached the API server").isEmpty();
    MESSAGES.put(bad.name(), thrown.getMessage());
  }

  /**
   * The page of every mistake this table makes and what the SDK answers, generated from the run:
   * a changed message shows in review. Regenerate it with FAIRING4J_API_UPDATE=1 (only when every
   * case ran: a filtered run leaves the page alone).
   */
  @org.junit.jupiter.api.AfterAll
  static void thePageOfMistakesIsWhatTheSdkAnswersNow() throws IOException {
    List<String> names = cases().map(a -> ((Named<?>) a.get()[0]).getName()).toList();
    if (!MESSAGES.keySet().containsAll(names)) {
      return;
    }
    StringBuilder page = new StringBuilder("""
        # Bad input and what fairing4j answers

        Every row is a mistake users make, and the error fairing4j raises for it, before any request
        reaches a registry or a cluster. The page is generated by `BadInputTableIT`, which makes each
        mistake through the front door and checks that nothing was sent. Paths, registry addresses and
        API server addresses are shown as `<dir>`, `<working directory>`, `<kubeconfig>`, `<registry>`
        and `<api-server>`.

        | mistake | error |
        |---|---|
        """);
    for (String name : names) {
      String message = MESSAGES.get(name).replace(dir.toString(), "<dir>")
          .replace(System.getProperty("user.dir"), "<working directory>")
          .replace(REGISTRY.hostPort(), "<registry>").replace(K8S.server().url(), "<api-server>")
          // the API server's kubeconfig files live in a directory of their own
          .replaceAll("/\\S*/fairing4j-kube-api-\\d+/[\\w.-]+", "<kubeconfig>")
          .replaceAll("\\s*\\R\\s*", " ").replace("|", "\\|");
      page.append("| ").append(name.replace("|", "\\|")).append(" | ").append(message)
          .append(" |\n");
    }
    GeneratedFile.assertCurrent(PAGE, page.toString(),
        "mvn -pl sdk-examples verify -Dtest=none -Dit.test=BadInputTableIT");
  }
}
