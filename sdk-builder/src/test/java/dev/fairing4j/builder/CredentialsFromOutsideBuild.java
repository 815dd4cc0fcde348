package dev.fairing4j.builder;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.ProgressListener;
import java.nio.file.Path;

/**
 * Pushes a one-file scratch image with credentials that come from outside the code, in a JVM of
 * its own so the test can set its environment. Arguments: {@code docker|env}, target
 * repository, CA certificate, cache directory. Prints {@code digest=...}.
 */
public final class CredentialsFromOutsideBuild {
  private CredentialsFromOutsideBuild() {}

  public static void main(String[] args) {
    JibImageBuilder builder = Builders.scratch().pushTo(args[1])
        .trustedCertificates(Path.of(args[2])).baseLayerCache(Path.of(args[3]));
    builder = args[0].equals("docker") ? builder.dockerConfig()
        : builder.credentialsFromEnvironment("REGISTRY_USER", "REGISTRY_PASSWORD");
    BuildContext context = BuildContext.empty()
        .withFile("/app/hello.txt", ContextFile.ofText(args[0] + "\n"));
    System.out.println("digest=" + builder.build(context, ProgressListener.NONE).digest()
        .orElseThrow());
  }
}
