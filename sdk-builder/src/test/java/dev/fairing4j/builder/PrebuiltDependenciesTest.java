package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.InvalidInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Bad input to prebuilt requirements names its field and the fix, before pip runs. */
class PrebuiltDependenciesTest {
  @TempDir Path dir;

  private static void invalid(ThrowingCallable call, String field, String fix) {
    assertThatThrownBy(call).isInstanceOfSatisfying(InvalidInputException.class, e -> {
      assertThat(e.field()).isEqualTo(field);
      assertThat(e.fix()).contains(fix);
    });
  }

  @Test
  void eachSettingIsCheckedWhenItIsGiven() throws Exception {
    invalid(() -> PrebuiltDependencies.fromWheelhouse(dir.resolve("missing")), "wheelhouse",
        "pip wheel");
    PrebuiltDependencies ok = PrebuiltDependencies.fromWheelhouse(dir);
    invalid(() -> ok.pythonVersion("3"), "pythonVersion", "3.11");
    invalid(() -> ok.platform("many linux"), "platform", "manylinux2014_x86_64");
    invalid(() -> ok.python(dir.resolve("no-python")), "python", "apt-get install python3-pip");
    invalid(() -> PrebuiltDependencies.fromIndex("ftp://mirror/simple"), "indexUrl",
        "https://pypi.org/simple");
  }

  @Test
  void aLocalFileIndexIsAcceptedAsPipAcceptsIt() {
    // pip reads file:// indexes (a corporate mirror synced to disk); they were refused.
    assertThat(PrebuiltDependencies.fromIndex(dir.toUri().toString()).indexUrl())
        .contains(dir.toUri().toString());
    assertThat(PrebuiltDependencies.fromIndex("file://" + dir).indexUrl()).isPresent();
    invalid(() -> PrebuiltDependencies.fromIndex("file://" + dir.resolve("nope")), "indexUrl",
        "file:///opt/pypi/simple");
  }

  @Test
  void prebuildingWithoutARequirementsFileIsBadInput() throws Exception {
    Files.writeString(dir.resolve("train.py"), "print(1)\n");

    invalid(() -> Preprocessors.python(dir.resolve("train.py"))
        .prebuildRequirements(PrebuiltDependencies.fromWheelhouse(dir)).prepare(),
        "requirements", ".requirements(Path.of(\"requirements.txt\"))");
  }

  @Test
  void valuesAreImmutableAndSayWhatTheyAre() {
    PrebuiltDependencies base = PrebuiltDependencies.fromWheelhouse(dir);
    PrebuiltDependencies pinned = base.pythonVersion("3.11").platform("manylinux2014_x86_64");

    assertThat(base.pythonVersion()).isEmpty();
    assertThat(pinned.pythonVersion()).contains("3.11");
    assertThat(pinned.toString()).contains("wheelhouse=", "python 3.11",
        "manylinux2014_x86_64");
    assertThat(Preprocessors.python(dir.resolve("t.py")).requirements(Path.of("r.txt"))
        .prebuildRequirements(pinned).toString()).contains("prebuilt(");
  }
}
