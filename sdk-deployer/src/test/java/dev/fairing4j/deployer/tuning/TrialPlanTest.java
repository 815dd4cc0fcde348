package dev.fairing4j.deployer.tuning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fairing4j.core.InvalidInputException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The trials a search proposes: seeded random draws inside every parameter's space, the grid in
 * name order, the values rendered as a script receives them, and the mistakes refused by name.
 */
class TrialPlanTest {
  private static final SearchSpace SPACE = SearchSpace.of(Map.of(
      "lr", Search.logUniform(0.001, 0.1),
      "momentum", Search.uniform(0.1, 0.9),
      "batch", Search.intRange(32, 128, 32),
      "optimizer", Search.choice("sgd", "adam")));

  @Test
  void theSameSeedProposesTheSameTrialsAndAnotherSeedOthers() {
    List<Map<String, String>> first = TrialPlan.propose(SPACE, Algorithm.random(42), 6);

    assertThat(first).hasSize(6).isEqualTo(TrialPlan.propose(SPACE, Algorithm.random(42), 6));
    assertThat(TrialPlan.propose(SPACE, Algorithm.random(43), 6)).isNotEqualTo(first);
    assertThat(TrialPlan.propose(SPACE, Algorithm.random(42), 3))
        .as("fewer trials are the first ones").isEqualTo(first.subList(0, 3));
    // The order the map was written in does not matter.
    SearchSpace reordered = SearchSpace.of(new java.util.LinkedHashMap<>(Map.of(
        "optimizer", Search.choice("sgd", "adam"), "batch", Search.intRange(32, 128, 32),
        "momentum", Search.uniform(0.1, 0.9), "lr", Search.logUniform(0.001, 0.1))));
    assertThat(TrialPlan.propose(reordered, Algorithm.random(42), 6)).isEqualTo(first);
  }

  @Test
  void randomDrawsStayInsideEveryParametersSpace() {
    List<Map<String, String>> trials = TrialPlan.propose(SPACE, Algorithm.random(7), 400);

    assertThat(trials).allSatisfy(trial -> {
      assertThat(trial.keySet()).containsExactlyInAnyOrder("lr", "momentum", "batch",
          "optimizer");
      assertThat(Double.parseDouble(trial.get("lr"))).isBetween(0.001, 0.1);
      assertThat(Double.parseDouble(trial.get("momentum"))).isBetween(0.1, 0.9);
      assertThat(Long.parseLong(trial.get("batch"))).isIn(32L, 64L, 96L, 128L);
      assertThat(trial.get("optimizer")).isIn("sgd", "adam");
    });
    // Log-uniform: about as many learning rates below 0.01 as above it.
    long below = trials.stream().filter(t -> Double.parseDouble(t.get("lr")) < 0.01).count();
    assertThat(below).isBetween(150L, 250L);
    Set<String> batches = trials.stream().map(t -> t.get("batch")).collect(Collectors.toSet());
    assertThat(batches).as("both ends of the integer range are drawn")
        .containsExactlyInAnyOrder("32", "64", "96", "128");
  }

  @Test
  void aGridIsEveryCombinationInNameOrderUpToTheTrialCount() {
    SearchSpace space = SearchSpace.of(Map.of("momentum", Search.uniform(0, 1).step(0.25),
        "optimizer", Search.choice("sgd", "adam")));

    List<Map<String, String>> grid = TrialPlan.propose(space, Algorithm.grid(), 100);

    assertThat(grid).hasSize(10);
    assertThat(grid.get(0)).isEqualTo(Map.of("momentum", "0", "optimizer", "sgd"));
    assertThat(grid.get(1)).isEqualTo(Map.of("momentum", "0", "optimizer", "adam"));
    assertThat(grid).extracting(t -> t.get("momentum")).containsExactly("0", "0", "0.25",
        "0.25", "0.5", "0.5", "0.75", "0.75", "1", "1");
    assertThat(TrialPlan.propose(space, Algorithm.grid(), 3)).isEqualTo(grid.subList(0, 3));
    assertThat(TrialPlan.propose(SearchSpace.of(Map.of("lr", Search.uniform(0.1, 0.3)
        .step(0.1))), Algorithm.grid(), 10)).extracting(t -> t.get("lr"))
        .as("0.1 + 2 * 0.1 is 0.3, not 0.30000000000000004, and is not dropped")
        .containsExactly("0.1", "0.2", "0.3");
  }

  @Test
  void whatAGridOrThisMachineCannotDoIsRefusedByName() {
    assertThatThrownBy(() -> TrialPlan.propose(SearchSpace.of(Map.of("momentum",
        Search.uniform(0.1, 0.9))), Algorithm.grid(), 4))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("searchSpace momentum").hasMessageContaining(".step(..)");
    assertThatThrownBy(() -> TrialPlan.propose(SearchSpace.of(Map.of("lr",
        Search.logUniform(0.001, 0.1))), Algorithm.grid(), 4))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("Search.choice");
    assertThatThrownBy(() -> TrialPlan.propose(SPACE, Algorithm.katib("tpe", Map.of()), 4))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("runs only through Katib");
    assertThatThrownBy(() -> TrialPlan.propose(SPACE, Algorithm.random(1), 0))
        .hasMessageContaining("maxTrials");
  }

  @Test
  void badSpacesObjectivesAndAlgorithmsAreRefusedNamingTheField() {
    assertThatThrownBy(() -> Search.uniform(1, 1)).hasMessageContaining("uniform")
        .hasMessageContaining("Search.choice");
    assertThatThrownBy(() -> Search.logUniform(0, 1)).hasMessageContaining("logUniform min");
    assertThatThrownBy(() -> Search.intRange(5, 1)).hasMessageContaining("intRange");
    assertThatThrownBy(() -> Search.choice("a", "a")).hasMessageContaining("repeats");
    assertThatThrownBy(() -> SearchSpace.of(Map.of("learning rate", Search.uniform(0, 1))))
        .hasMessageContaining("'learning rate' cannot be a parameter name");
    assertThatThrownBy(() -> SearchSpace.of(Map.of())).hasMessageContaining("no parameters");
    assertThatThrownBy(() -> Objective.maximize("test accuracy"))
        .hasMessageContaining("objective metric");
    assertThatThrownBy(() -> Algorithm.katib("magic", Map.of()))
        .hasMessageContaining("'magic' is not one of Katib's");
  }

  @Test
  void anObjectiveKnowsBetterAndWhenItsGoalIsReached() {
    Objective accuracy = Objective.maximize("accuracy").goal(0.9);
    Objective loss = Objective.minimize("loss").goal(0.1);

    assertThat(accuracy.direction().better(0.8, 0.7)).isTrue();
    assertThat(loss.direction().better(0.8, 0.7)).isFalse();
    assertThat(accuracy.reached(0.91)).isTrue();
    assertThat(accuracy.reached(0.89)).isFalse();
    assertThat(loss.reached(0.05)).isTrue();
    assertThat(Objective.maximize("accuracy").reached(1.0)).as("no goal").isFalse();
  }

  @Test
  void doublesAreRenderedAsAScriptReadsThem() {
    assertThat(TrialPlan.render(0.1 + 0.2)).isEqualTo("0.3");
    assertThat(TrialPlan.render(1e-7)).isEqualTo("0.0000001");
    assertThat(TrialPlan.render(0.0123456789)).isEqualTo("0.0123457");
    assertThat(TrialPlan.render(-0.0)).isEqualTo("0");
    assertThat(TrialPlan.render(2.0)).isEqualTo("2");
  }
}
