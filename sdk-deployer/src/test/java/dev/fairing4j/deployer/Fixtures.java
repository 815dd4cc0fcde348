package dev.fairing4j.deployer;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.deployer.job.Cluster;
import dev.fairing4j.deployer.job.internal.ClusterBackend;
import dev.fairing4j.deployer.job.internal.RenderedJob;
import dev.fairing4j.deployer.job.internal.SubmitOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Fixed inputs and small helpers shared by the deployer tests. */
public final class Fixtures {
  /** The digest every test image is pinned to. */
  public static final String DIGEST =
      "sha256:4f6c1b2a9d8e7f60a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718";

  private static final YAMLMapper YAML = new YAMLMapper();

  private Fixtures() {}

  /** A build context like the python preprocessor makes for mnist.py. */
  public static BuildContext context() {
    return BuildContext.empty()
        .withFile("/app/mnist.py", ContextFile.ofText("print('training')\n"))
        .withCommand(List.of("python", "-u", "/app/mnist.py"));
  }

  /**
   * The context {@code Preprocessors.predictor(Path.of("mnist_predictor.py"))} makes, with
   * {@code extra} server arguments (e.g. {@code "--model_name", "digits"}).
   */
  public static BuildContext predictorContext(String... extra) {
    List<String> command = new java.util.ArrayList<>(List.of("python", "-u",
        "/app/.fairing4j/fairing4j_model_server.py", "--predictor", "/app/mnist_predictor.py"));
    command.addAll(List.of(extra));
    return BuildContext.empty()
        .withFile("/app/mnist_predictor.py", ContextFile.ofText("class M: pass\n"))
        .withCommand(command);
  }

  /** A pushed image, pinned by digest. */
  public static ImageRef image() {
    return new ImageRef("registry.example.com", "team/mnist",
        Optional.of(context().contentTag()), Optional.of(DIGEST));
  }

  /** Parses multi-document YAML back into maps, the way kubectl would read it. */
  public static List<Map<String, Object>> parse(String yaml) {
    try (MappingIterator<Map<String, Object>> docs = YAML.readerFor(
        new TypeReference<Map<String, Object>>() {}).readValues(yaml)) {
      List<Map<String, Object>> result = new ArrayList<>();
      while (docs.hasNext()) {
        result.add(docs.next());
      }
      return result;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The last document: the training object. */
  public static Map<String, Object> trainingObject(String yaml) {
    List<Map<String, Object>> docs = parse(yaml);
    return docs.get(docs.size() - 1);
  }

  /** Follows a path of map keys and list indexes. */
  @SuppressWarnings("unchecked")
  public static <T> T at(Object root, Object... path) {
    Object current = root;
    for (Object step : path) {
      if (step instanceof Integer index) {
        current = ((List<Object>) current).get(index);
      } else {
        current = ((Map<String, Object>) current).get(step);
      }
      if (current == null) {
        return null;
      }
    }
    return (T) current;
  }

  /** A cluster that records what it is asked to submit and submits nothing. */
  public static final class CapturingCluster implements Cluster, ClusterBackend {
    private final boolean direct;
    /** Every submission, in order. */
    public final List<RenderedJob> submitted = new ArrayList<>();
    /** The options of every submission, in order. */
    public final List<SubmitOptions> options = new ArrayList<>();

    /** A cluster that runs images. */
    public CapturingCluster() {
      this(false);
    }

    /** A cluster that runs images, or build contexts directly when {@code direct}. */
    public CapturingCluster(boolean direct) {
      this.direct = direct;
    }

    @Override
    public String describe() {
      return "capturing";
    }

    @Override
    public boolean runsContextDirectly() {
      return direct;
    }

    @Override
    public TrainingJob submit(RenderedJob job, BuildContext context, SubmitOptions submitOptions,
        ProgressListener progress) {
      submitted.add(job);
      options.add(submitOptions);
      return null;
    }
  }
}
