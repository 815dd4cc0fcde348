package dev.fairing4j.deployer.local;

import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tools;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every local-cluster IT shares, written once: a state and a volumes directory of its own,
 * bubblewrap (failing with the install hint when missing), and no job outliving its test, since
 * replicas a clean-pod policy of None left running would hold ports and CPUs for the next one.
 */
abstract class LocalClusterTestBase {
  @TempDir
  Path state;
  @TempDir
  Path volumes;

  @BeforeAll
  static void bubblewrap() {
    Tools.require("bwrap", "bubblewrap");
  }

  @AfterEach
  void deleteEveryJob() {
    LocalCluster.create().stateDir(state).listAll().forEach(TrainingJob::delete);
  }
}
