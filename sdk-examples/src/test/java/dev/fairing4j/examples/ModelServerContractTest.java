package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.fairing4j.builder.internal.preprocess.ModelServer;
import dev.fairing4j.deployer.job.internal.ServedModel;
import dev.fairing4j.deployer.local.internal.python.ImportScanner;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The model server (sdk-builder) and the deployers that check a predictor's imports before a
 * submit (sdk-deployer) share a contract by name only, the modules not depending on each other:
 * the server's file name, and the {@code kserve} modules its stand-in provides.
 */
class ModelServerContractTest {
  private static final Pattern PROVIDED_KEY = Pattern.compile("^ {4}\"(kserve[\\w.]*)\":",
      Pattern.MULTILINE);

  @Test
  void theDeployersKnowTheServerByTheFileNameTheBuilderGivesIt() {
    assertThat(ServedModel.SERVER_FILE).isEqualTo(ModelServer.FILE_NAME);
  }

  @Test
  void theImportCheckExcusesExactlyTheKserveModulesTheStandInProvides() {
    String script = ModelServer.kserveScript();
    int start = script.indexOf("\n_PROVIDED = {");
    int end = script.indexOf("\n}\n", start);
    assertThat(start).as("_PROVIDED in %s", ModelServer.KSERVE_FILE_NAME).isPositive();
    Set<String> provided = new TreeSet<>();
    Matcher m = PROVIDED_KEY.matcher(script.substring(start, end));
    while (m.find()) {
      provided.add(m.group(1));
    }
    assertThat(provided).hasSizeGreaterThan(1)
        .isEqualTo(new TreeSet<>(ImportScanner.KSERVE_STAND_IN));
  }
}
