package dev.fairing4j.deployer.local.internal.python;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The install hint names packages, which for some modules have another name. */
class InterpreterResolverTest {

  @Test
  void aModuleWhosePackageIsNamedOtherwiseGetsThePackagesName() {
    assertThat(InterpreterResolver.pipPackages(List.of("hypertune", "sklearn", "torch")))
        .containsExactly("cloudml-hypertune", "scikit-learn", "torch");
    assertThat(InterpreterResolver.packageNote(List.of("hypertune")))
        .isEqualTo("module hypertune comes from the package cloudml-hypertune");
  }

  @Test
  void anUnknownModuleIsSaidToMaybeComeFromAPackageOfAnotherName() {
    assertThat(InterpreterResolver.pipPackages(List.of("nonexistent_xyz")))
        .containsExactly("nonexistent_xyz");
    assertThat(InterpreterResolver.packageNote(List.of("nonexistent_xyz", "numpy")))
        .isEqualTo("the package of nonexistent_xyz may be named differently from the module:"
            + " check its install instructions");
    assertThat(InterpreterResolver.packageNote(List.of("numpy", "torch"))).isEmpty();
  }

  @Test
  void aModuleOfManyPackagesIsNotGuessed() {
    assertThat(InterpreterResolver.pipPackages(List.of("google"))).isEmpty();
    assertThat(InterpreterResolver.packageNote(List.of("google"))).startsWith(
        "module google comes from a google-* package");
  }
}
