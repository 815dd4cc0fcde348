package dev.fairing4j.examples;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The command line of {@code scripts/example.sh}, parsed: which example, where it runs (the local
 * cluster, or a Kubernetes cluster with a registry), and the few knobs the examples share.
 *
 * @param name the example, e.g. {@code gloo-demo}
 * @param dryRun print the manifests, build and submit nothing
 * @param kubeconfig submit to the cluster of this kubeconfig instead of the local cluster
 * @param registry push the image to this repository (needed with {@code kubeconfig})
 * @param namespace the namespace, instead of the example's own
 * @param base the base image of the built image; empty for the example's own
 * @param epochs training epochs
 * @param samples train (and evaluate) on the first N samples; 0 for the whole data set
 * @param gpus GPUs per replica; empty for the example's default
 * @param gitUrl the repository {@code arena-dist} syncs its code from; empty for a local one
 * @param quiet no progress display
 * @param dataClaim the claim holding FashionMNIST, mounted read-only where the script reads it
 *     ({@value FashionMnist#DATA_DIR}); not for {@code arena-dist}, whose claim is
 *     {@value ArenaDist#DATA_CLAIM}; empty for the data the image or node provides
 */
public record ExampleOptions(String name, boolean dryRun, Optional<Path> kubeconfig,
    Optional<String> registry, Optional<String> namespace, Optional<String> base, int epochs,
    int samples, Optional<Integer> gpus, Optional<String> gitUrl, boolean quiet,
    Optional<String> dataClaim) {
  /** The base image of the PyTorch examples: the seed scenarios' PyTorch runtime. */
  public static final String DEFAULT_BASE = "pytorch/pytorch:2.3.1-cuda12.1-cudnn8-runtime";
  /** Where dry runs without {@code --registry} say the image would be pushed. */
  public static final String EXAMPLE_REGISTRY = "registry.example.com/fairing4j/";

  /** The usage text. */
  public static final String USAGE = String.join("\n",
      "usage: scripts/example.sh <name> [--dry-run] [--kubeconfig FILE] [--registry REPO]",
      "                          [--namespace NS] [--base IMAGE] [--epochs N] [--samples N]",
      "                          [--gpus N] [--git-url URL] [--data-claim NAME] [--quiet]",
      "  default: run on this machine (Clusters.local()); --dry-run prints the manifests only;",
      "  --kubeconfig FILE --registry REPO: build with Jib, push and submit to that cluster;",
      "  --data-claim NAME: FashionMNIST from that claim (pods on a cluster cannot download it).");

  private static final Set<String> VALUE_OPTIONS = Set.of("--kubeconfig", "--registry",
      "--namespace", "--base", "--epochs", "--samples", "--gpus", "--git-url", "--data-claim");

  /** Checks the combination. */
  public ExampleOptions {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(kubeconfig, "kubeconfig");
    Objects.requireNonNull(registry, "registry");
    Objects.requireNonNull(namespace, "namespace");
    Objects.requireNonNull(base, "base");
    Objects.requireNonNull(gpus, "gpus");
    Objects.requireNonNull(gitUrl, "gitUrl");
    Objects.requireNonNull(dataClaim, "dataClaim");
    if (epochs < 1) {
      throw new IllegalArgumentException("--epochs must be at least 1, got " + epochs);
    }
    if (samples < 0) {
      throw new IllegalArgumentException("--samples must not be negative, got " + samples);
    }
    if (gpus.isPresent() && gpus.get() < 0) {
      throw new IllegalArgumentException("--gpus must not be negative, got " + gpus.get());
    }
  }

  /** The options without a data claim, as before {@code --data-claim} existed. */
  public ExampleOptions(String name, boolean dryRun, Optional<Path> kubeconfig,
      Optional<String> registry, Optional<String> namespace, Optional<String> base, int epochs,
      int samples, Optional<Integer> gpus, Optional<String> gitUrl, boolean quiet) {
    this(name, dryRun, kubeconfig, registry, namespace, base, epochs, samples, gpus, gitUrl,
        quiet, Optional.empty());
  }

  /** {@code name} on the local cluster with the defaults: one epoch over the whole data set. */
  public static ExampleOptions of(String name) {
    return new ExampleOptions(name, false, Optional.empty(), Optional.empty(), Optional.empty(),
        Optional.empty(), 1, 0, Optional.empty(), Optional.empty(), false, Optional.empty());
  }

  /** Parses {@code args}: the example's name first, then options. */
  public static ExampleOptions parse(String... args) {
    if (args.length == 0 || args[0].startsWith("-")) {
      throw new IllegalArgumentException("name an example first\n" + USAGE);
    }
    ExampleOptions options = of(args[0]);
    for (int i = 1; i < args.length; i++) {
      String arg = args[i];
      int eq = arg.indexOf('=');
      String option = eq > 0 ? arg.substring(0, eq) : arg;
      if (option.equals("--dry-run") || option.equals("--quiet")) {
        options = option.equals("--dry-run") ? options.withDryRun(true) : options.withQuiet(true);
        continue;
      }
      if (!VALUE_OPTIONS.contains(option)) {
        throw new IllegalArgumentException("unknown option " + arg + "\n" + USAGE);
      }
      // Options with a value accept both "--epochs 2" and "--epochs=2".
      String value;
      if (eq > 0) {
        value = arg.substring(eq + 1);
      } else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
        value = args[++i];
      } else {
        throw new IllegalArgumentException(option + " needs a value\n" + USAGE);
      }
      options = switch (option) {
        case "--kubeconfig" -> options.withKubeconfig(Path.of(value));
        case "--registry" -> options.withRegistry(value);
        case "--namespace" -> options.withNamespace(value);
        case "--base" -> options.withBase(value);
        case "--epochs" -> options.withEpochs(number(option, value));
        case "--samples" -> options.withSamples(number(option, value));
        case "--gpus" -> options.withGpus(number(option, value));
        case "--git-url" -> options.withGitUrl(value);
        case "--data-claim" -> options.withDataClaim(value);
        default -> throw new IllegalArgumentException("unknown option " + arg + "\n" + USAGE);
      };
    }
    return options.checked();
  }

  /**
   * This, after the checks that concern the combination of options.
   *
   * @throws IllegalArgumentException when {@code --kubeconfig} comes without {@code --registry},
   *     or {@code --data-claim} with {@code arena-dist}, which has a claim of its own
   */
  public ExampleOptions checked() {
    // A real cluster pulls the image from somewhere: refuse early rather than after a long build.
    if (kubeconfig.isPresent() && registry.isEmpty() && !dryRun) {
      throw new IllegalArgumentException("--kubeconfig needs --registry REPO: the cluster pulls"
          + " the image from there (e.g. --registry registry.example.com/team/" + name + ")");
    }
    // The seed fixes arena-dist's data claim; a second one would silently go unused.
    if (dataClaim.isPresent() && name.equals("arena-dist")) {
      throw new IllegalArgumentException("arena-dist reads FashionMNIST from its own claim "
          + ArenaDist.DATA_CLAIM + " at " + ArenaDist.DATA_PATH + ": put the data there instead"
          + " of giving --data-claim");
    }
    return this;
  }

  /** True when the example runs on this machine (no kubeconfig given). */
  public boolean local() {
    return kubeconfig.isEmpty();
  }

  /** The repository the image goes to: {@code --registry}, else the dry-run placeholder. */
  public String repository() {
    return registry.orElse(EXAMPLE_REGISTRY + name);
  }

  /** A copy that prints the manifests only. */
  public ExampleOptions withDryRun(boolean value) {
    return copy(value, kubeconfig, registry, namespace, base, epochs, samples, gpus, gitUrl, quiet);
  }

  /** A copy without (or with) the progress display. */
  public ExampleOptions withQuiet(boolean value) {
    return copy(dryRun, kubeconfig, registry, namespace, base, epochs, samples, gpus, gitUrl, value);
  }

  /** A copy that submits to the cluster of {@code file}. */
  public ExampleOptions withKubeconfig(Path file) {
    return copy(dryRun, Optional.of(file), registry, namespace, base, epochs, samples, gpus,
        gitUrl, quiet);
  }

  /** A copy that pushes to {@code repository}. */
  public ExampleOptions withRegistry(String repository) {
    return copy(dryRun, kubeconfig, Optional.of(repository), namespace, base, epochs, samples,
        gpus, gitUrl, quiet);
  }

  /** A copy in namespace {@code ns}. */
  public ExampleOptions withNamespace(String ns) {
    return copy(dryRun, kubeconfig, registry, Optional.of(ns), base, epochs, samples, gpus,
        gitUrl, quiet);
  }

  /** A copy building on {@code image}. */
  public ExampleOptions withBase(String image) {
    return copy(dryRun, kubeconfig, registry, namespace, Optional.of(image), epochs, samples, gpus, gitUrl,
        quiet);
  }

  /** A copy training {@code n} epochs. */
  public ExampleOptions withEpochs(int n) {
    return copy(dryRun, kubeconfig, registry, namespace, base, n, samples, gpus, gitUrl, quiet);
  }

  /** A copy training on the first {@code n} samples. */
  public ExampleOptions withSamples(int n) {
    return copy(dryRun, kubeconfig, registry, namespace, base, epochs, n, gpus, gitUrl, quiet);
  }

  /** A copy with {@code n} GPUs per replica. */
  public ExampleOptions withGpus(int n) {
    return copy(dryRun, kubeconfig, registry, namespace, base, epochs, samples, Optional.of(n),
        gitUrl, quiet);
  }

  /** A copy syncing code from {@code url}. */
  public ExampleOptions withGitUrl(String url) {
    return copy(dryRun, kubeconfig, registry, namespace, base, epochs, samples, gpus,
        Optional.of(url), quiet);
  }

  /** A copy reading FashionMNIST from claim {@code claim}. */
  public ExampleOptions withDataClaim(String claim) {
    if (claim == null || claim.isBlank()) {
      throw new IllegalArgumentException("--data-claim needs a claim name");
    }
    return new ExampleOptions(name, dryRun, kubeconfig, registry, namespace, base, epochs,
        samples, gpus, gitUrl, quiet, Optional.of(claim.trim()));
  }

  private ExampleOptions copy(boolean dryRun, Optional<Path> kubeconfig, Optional<String> registry,
      Optional<String> namespace, Optional<String> base, int epochs, int samples, Optional<Integer> gpus,
      Optional<String> gitUrl, boolean quiet) {
    // The combination is checked by checked(), once all options are in.
    return new ExampleOptions(name, dryRun, kubeconfig, registry, namespace, base, epochs,
        samples, gpus, gitUrl, quiet, dataClaim);
  }

  private static int number(String option, String text) {
    try {
      return Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(option + " needs a number, got '" + text + "'");
    }
  }
}
