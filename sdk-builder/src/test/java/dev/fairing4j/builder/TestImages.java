package dev.fairing4j.builder;

import dev.fairing4j.core.BuildContext;
import dev.fairing4j.core.ContextFile;
import dev.fairing4j.core.ImageRef;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.testing.RegistryRequest;
import dev.fairing4j.core.testing.Skopeo;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;

/** Test images made without the internet: tiny bases built from scratch into a test registry. */
final class TestImages {
  private TestImages() {}

  /**
   * Pushes a one-layer base to {@code reference} (built from scratch by Jib, so no Docker Hub):
   * a file /etc/base-release, env BASE_ENV=from-base, label base.label=yes.
   */
  static ImageRef pushTinyBase(String reference, Path cache) {
    BuildContext base = BuildContext.empty()
        .withFile("/etc/base-release", ContextFile.ofText("tiny base 1\n"))
        .withEnv("BASE_ENV", "from-base").withLabel("base.label", "yes").withWorkingDir("/");
    return Builders.scratch().pushTo(reference).baseLayerCache(cache)
        .build(base, ProgressListener.NONE);
  }

  /** {@code skopeo inspect --config}: the image config as the registry serves it. */
  static JsonNode config(String reference, String... credentials) {
    List<String> args = new java.util.ArrayList<>(List.of("inspect", "--tls-verify=false",
        "--config"));
    if (credentials.length == 2) {
      args.addAll(List.of("--creds", credentials[0] + ":" + credentials[1]));
    }
    args.add("docker://" + reference);
    try {
      return new ObjectMapper().readTree(Skopeo.run(args));
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** Completed blob uploads (the final PUT of each upload session) in {@code requests}. */
  static List<RegistryRequest> completedUploads(List<RegistryRequest> requests) {
    return requests.stream().filter(r -> r.isBlobUpload() && r.method().equals("PUT")
        && r.status() == 201).toList();
  }
}
