package dev.fairing4j.examples;

import dev.fairing4j.builder.Builders;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.ImageBuilder;
import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Run in a separate JVM by {@link BadInputTableIT}, whose environment (KUBECONFIG, HOME, PATH) is
 * the case (with {@code FAIRING4J_BAD_INPUT=dockerfile-run}, the builder is a Dockerfile with a
 * RUN step): runs the table's baseline pipeline on {@code Clusters.kubernetes()} with kubectl's
 * defaults and prints the parts of the {@link InvalidInputException} it expects, exiting 3; any
 * other outcome exits 1.
 */
public final class BadInputChild {
  private BadInputChild() {}

  /** Args: registry host:port, train.py. */
  public static void main(String[] args) {
    try {
      ImageBuilder builder = Builders.jib(args[0] + "/base/python:3.11")
          .pushTo(args[0] + "/team/bad-input");
      if ("dockerfile-run".equals(System.getenv("FAIRING4J_BAD_INPUT"))) {
        // A Dockerfile that needs a tool, on a PATH without one.
        Path dockerfile = Files.writeString(Path.of(args[1]).resolveSibling("Dockerfile.run"),
            "FROM " + args[0] + "/base/python:3.11\nCOPY train.py /app/\n"
                + "RUN pip install --no-index numpy\nCMD [\"python\", \"/app/train.py\"]\n");
        builder = Builders.dockerfile(dockerfile).pushTo(args[0] + "/team/bad-input");
      }
      Fairing.pipeline().progress(ProgressListener.NONE)
          .preprocessor(Preprocessors.python(Path.of(args[1])))
          .builder(builder)
          .deployer(Deployers.pyTorchJob("bad-input").workers(1).on(Clusters.kubernetes()))
          .run();
      System.out.println("the pipeline ran");
      System.exit(1);
    } catch (InvalidInputException e) {
      String message = e.getMessage();
      String fix = " (fix: " + e.fix() + ")";
      String problem = message.substring(message.indexOf(" failed: ") + " failed: ".length(),
          message.endsWith(fix) ? message.length() - fix.length() : message.length());
      System.out.println("FIELD=" + e.field());
      System.out.println("PROBLEM=" + problem.replace("\n", "\\n"));
      System.out.println("FIX=" + e.fix().replace("\n", "\\n"));
      System.exit(3);
    } catch (RuntimeException | java.io.IOException e) {
      e.printStackTrace(System.out);
      System.exit(1);
    }
  }
}
