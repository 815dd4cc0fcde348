package dev.fairing4j.examples;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackages;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import com.tngtech.archunit.library.dependencies.SliceRule;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import dev.fairing4j.examples.archfixture.Leaky;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The SDK's shape, checked on its compiled main classes (sdk-core, sdk-builder, sdk-deployer; not
 * tests, fixtures or these examples): this module sees all three, so the rules live here.
 *
 * <p>Why: the design promises users one clean public surface, with implementation detail in
 * {@code ..internal..} packages that may change in any release, and a one-way flow of data from
 * builder to deployer through core's vocabulary. Both erode one convenient {@code public} at a
 * time, and a reviewer does not see a leaked type in a diff; these rules do.
 */
class ArchitectureTest {
  private static final JavaClasses SDK = new ClassFileImporter()
      .withImportOption(ArchitectureTest::isMainClass)
      .importPackages("dev.fairing4j.core", "dev.fairing4j.builder", "dev.fairing4j.deployer");

  // The reactor puts sibling modules' test classes (and sdk-core's test-jar) on this class path.
  private static boolean isMainClass(Location location) {
    return ImportOption.Predefined.DO_NOT_INCLUDE_TESTS.includes(location)
        && !location.contains("-tests.jar") && !location.contains("/test-classes/");
  }

  @Test
  void sdkClassesAreImported() {
    // Guards the rules below against passing vacuously on an empty import.
    assertThat(SDK.stream().map(JavaClass::getPackageName)
        .filter(p -> p.startsWith("dev.fairing4j.deployer")).count()).isGreaterThan(100);
    assertThat(SDK.containPackage("dev.fairing4j.core.testing"))
        .isFalse();
  }

  @Test
  void publicSignaturesOutsideInternalPackagesNameNoInternalType() {
    classes().that().arePublic().and().resideOutsideOfPackage("..internal..")
        .should(exposeNoInternalType())
        .check(SDK);
  }

  @Test
  void theSurfaceRuleSeesInternalTypesInHeadersFieldsConstructorsAndGenericArguments() {
    JavaClasses fixture = new ClassFileImporter()
        .importPackages("dev.fairing4j.examples.archfixture");
    ConditionEvents events = ConditionEvents.Factory.create();
    exposeNoInternalType().check(fixture.get(Leaky.class), events);
    assertThat(events.getViolating()).flatMap(e -> e.getDescriptionLines())
        .hasSize(5)
        .anyMatch(l -> l.contains("implements"))
        .anyMatch(l -> l.contains("field field"))
        .anyMatch(l -> l.contains("<init>(..) takes"))
        .anyMatch(l -> l.contains("get(..) returns"))
        .anyMatch(l -> l.contains("take(..) takes"))
        .noneMatch(l -> l.contains("quiet"));
  }

  @Test
  void builderAndDeployerDependOnlyOnCoreAmongSdkModules() {
    classes().that().resideInAPackage("dev.fairing4j.builder..")
        .should().onlyDependOnClassesThat(resideOutsideOfPackage("dev.fairing4j..")
            .or(resideInAnyPackage("dev.fairing4j.core..", "dev.fairing4j.builder..")))
        .check(SDK);
    classes().that().resideInAPackage("dev.fairing4j.deployer..")
        .should().onlyDependOnClassesThat(resideOutsideOfPackage("dev.fairing4j..")
            .or(resideInAnyPackage("dev.fairing4j.core..", "dev.fairing4j.deployer..")))
        .check(SDK);
  }

  @Test
  void coreDependsOnNoOtherSdkModule() {
    classes().that().resideInAPackage("dev.fairing4j.core..")
        .should().onlyDependOnClassesThat(resideOutsideOfPackage("dev.fairing4j..")
            .or(resideInAnyPackage("dev.fairing4j.core..")))
        .check(SDK);
  }

  @Test
  void theLocalClusterRoomsDependOnlyOnTheRoomsBelowThem() {
    // settings (the cluster's settings, its exception) at the bottom; runtime above them;
    // state above that; the plan reads a manifest with the host's facts; a TrainJob's status
    // server (trainerstatus) knows the plan and the sandbox's binds; operator decides with all
    // of them; the supervisor process runs the operator; the package itself (submit paths,
    // handles) sits on top and may use all.
    String local = "dev.fairing4j.deployer.local.internal";
    Map<String, List<String>> below = Map.of(
        "settings", List.of(),
        "runtime", List.of("settings"),
        "python", List.of("runtime", "settings"),
        "state", List.of("runtime", "settings"),
        "logs", List.of("runtime", "state", "settings"),
        "plan", List.of("runtime", "settings"),
        "trainerstatus", List.of("plan", "runtime", "settings"),
        "operator", List.of("plan", "runtime", "state", "settings", "trainerstatus"),
        "supervisor", List.of("operator", "plan", "runtime", "state", "settings",
            "trainerstatus"));
    checkRooms(local, below);
  }

  @Test
  void theKubernetesBackendRoomsDependOnlyOnTheRoomsBelowThem() {
    // jobs reads and writes job objects and diagnoses their pods; diagnosis (failure reports,
    // stuck pods, waiting for the end) reads jobs; nothing below logs reads logs.
    String kubernetes = "dev.fairing4j.deployer.kubernetes.internal";
    Map<String, List<String>> below = Map.of(
        "transport", List.of(),
        "jobs", List.of("transport"),
        "diagnosis", List.of("transport", "jobs"),
        "logs", List.of("transport", "jobs", "diagnosis"),
        "builds", List.of("transport", "jobs"),
        "serving", List.of("transport", "jobs"));
    checkRooms(kubernetes, below);
  }

  private static void checkRooms(String base, Map<String, List<String>> below) {
    assertThat(SDK.stream().map(JavaClass::getPackageName)
        .filter(p -> p.startsWith(base + ".")).map(p -> p.substring(base.length() + 1))
        .map(p -> p.split("\\.")[0]).distinct())
        .as("every room of " + base + " has a rule")
        .containsExactlyInAnyOrderElementsOf(below.keySet());
    below.forEach((room, allowed) -> {
      List<String> packages = new ArrayList<>();
      packages.add(base + "." + room + "..");
      allowed.forEach(a -> packages.add(base + "." + a + ".."));
      classes().that().resideInAPackage(base + "." + room + "..")
          .should().onlyDependOnClassesThat(resideOutsideOfPackage(base + "..")
              .or(resideInAnyPackage(packages.toArray(String[]::new))))
          .check(SDK);
    });
  }

  /**
   * The classes of TrainJob's room that the clusters still read directly: the next kind to move
   * behind the seam (issue 35). The list only shrinks.
   */
  private static final Set<String> TRAINJOB_NOT_YET_BEHIND_THE_SEAM = Set.of(
      "TorchCommand", "TrainJobRules", "TrainJobStatus", "TrainJobs", "TrainerDialect",
      "TrainerTopology");

  @Test
  void theClustersTuningAndTheFollowerReachTheKindsOnlyThroughTheirSeam() {
    // A kind's room (kubeflow, trainer, batch, serving) keeps its internals: the clusters, tuning
    // and the follower ask the kind's interface (TrainingKind), so a new kind touches its room.
    kindSeam("dev.fairing4j.deployer", TRAINJOB_NOT_YET_BEHIND_THE_SEAM).check(SDK);
  }

  @Test
  void theKindSeamRuleFailsOnAClusterReadingAKindsInternals() {
    JavaClasses fixture = new ClassFileImporter()
        .importPackages("dev.fairing4j.examples.archfixture");
    assertThat(kindSeam("dev.fairing4j.examples.archfixture", Set.of()).evaluate(fixture)
        .getFailureReport().getDetails())
        .singleElement().asString().contains("PlantedCluster.container()",
            "archfixture.kubeflow.internal.KindDetail.container()");
  }

  private static ArchRule kindSeam(String base, Set<String> allowed) {
    String[] rooms = {base + ".kubeflow.internal..", base + ".trainer.internal..",
        base + ".batch.internal..", base + ".serving.internal.."};
    return classes().that().resideInAnyPackage(base + ".local..", base + ".kubernetes..",
            base + ".tuning..", base + ".monitor..", base + ".job..")
        .should().onlyDependOnClassesThat(resideOutsideOfPackages(rooms)
            .or(new DescribedPredicate<JavaClass>("a listed class of TrainJob's room") {
              @Override
              public boolean test(JavaClass type) {
                String top = type.getName().replaceAll("\\$.*", "");
                return type.getPackageName().equals(base + ".trainer.internal")
                    && allowed.contains(top.substring(top.lastIndexOf('.') + 1));
              }
            }));
  }

  @Test
  void everyStaticFieldOfMutableStateSaysWhyItIsJvmWideAndWhatBoundsIt() {
    // A service embeds the SDK for months: state no client or job owns lives as long as the JVM.
    assertThat(MutableStatics.unmarked(SDK)).isEmpty();
  }

  @Test
  void noClassInitializerLooksForANotebookKernel() {
    // Loading a class must not do work: the first displayable value registers the renderer.
    List<String> callers = new ArrayList<>();
    SDK.get("dev.fairing4j.core.internal.KernelBridge").getMethodCallsToSelf().stream()
        .filter(call -> call.getOrigin().getName().equals("<clinit>"))
        .forEach(call -> callers.add(call.getOriginOwner().getName()));
    assertThat(callers).isEmpty();
    assertThat(SDK.get("dev.fairing4j.core.internal.KernelBridge").getMethodCallsToSelf())
        .as("the constructors of displayable values call it")
        .anyMatch(call -> call.getOriginOwner().getName().equals("dev.fairing4j.core.JobStatus")
            && call.getOrigin().getName().equals("<init>"));
  }

  @Test
  void theMutableStaticsRuleFindsUnmarkedStateAndLeavesConstantsAlone() {
    JavaClasses fixture = new ClassFileImporter()
        .importPackages("dev.fairing4j.examples.archfixture");
    assertThat(MutableStatics.unmarked(fixture)).containsExactlyInAnyOrder(
        "dev.fairing4j.examples.archfixture.Statics.CACHE (a mutable Map)",
        "dev.fairing4j.examples.archfixture.Statics.POOL (a mutable ExecutorService)",
        "dev.fairing4j.examples.archfixture.Statics.lazy (not final)");
  }

  @Test
  void noTwoRoomsDependOnEachOther() {
    // A room is a package with its machinery (the packages below it on an `internal` path):
    // deployer.kubernetes with kubernetes.internal.jobs, deployer.job with job.internal.kinds,
    // builder with builder.internal.image. Within a room the face and the machinery call each
    // other (the machinery throws the face's exceptions); between rooms every dependency is one
    // way, so each layer can be read and changed without the ones above it. The layers, top
    // down, are written out in the next test.
    //
    // One known exception, named so that it cannot grow: core's FairingRuntime takes the cache
    // room's CacheLimits while the cache room speaks core's vocabulary (InvalidInputException,
    // Displayable). It goes when the cache names and limits move below the runtime.
    SliceRule rule = roomsAreFreeOfCycles()
        .ignoreDependency("dev.fairing4j.core.FairingRuntime",
            "dev.fairing4j.core.cache.CacheLimits");
    rule.check(SDK);
  }

  @Test
  void theRoomCycleRuleFailsOnAPlantedLoopAndNotOnARoomCallingItsOwnMachinery() {
    JavaClasses fixture = new ClassFileImporter()
        .importPackages("dev.fairing4j.examples.archfixture.rooms");
    String report = String.join("\n", roomsAreFreeOfCycles().evaluate(fixture)
        .getFailureReport().getDetails());
    assertThat(report).contains("archfixture.rooms.front", "archfixture.rooms.kind",
        "KindMachinery.length()");
    assertThat(report).doesNotContain("FrontMachinery.again()");
  }

  @Test
  void theMachineryOfARoomIsLayeredToo() {
    // Below a room's face its machinery is split by topic (kubernetes.internal.jobs, .logs,
    // .diagnosis, .transport; local.internal.settings, .runtime, .state, .operator...); those
    // packages depend one way as well, so a topic can be read with only the ones below it.
    machineryIsFreeOfCycles().check(SDK);
  }

  @Test
  void theMachineryRuleFailsOnAPlantedLoopBetweenTwoMachineryPackages() {
    JavaClasses fixture = new ClassFileImporter()
        .importPackages("dev.fairing4j.examples.archfixture.rooms");
    String report = String.join("\n", machineryIsFreeOfCycles().evaluate(fixture)
        .getFailureReport().getDetails());
    assertThat(report).contains("Part.whole()", "KindMachinery.parts()");
    assertThat(report).doesNotContain("Front.name()");
  }

  private static SliceRule machineryIsFreeOfCycles() {
    return SlicesRuleDefinition.slices().assignedFrom(new SliceAssignment() {
      @Override
      public SliceIdentifier getIdentifierOf(JavaClass type) {
        String pkg = type.getPackageName();
        return pkg.startsWith("dev.fairing4j.") && (pkg + ".").contains(".internal.")
            ? SliceIdentifier.of(pkg) : SliceIdentifier.ignore();
      }

      @Override
      public String getDescription() {
        return "the packages of the rooms' machinery";
      }
    }).should().beFreeOfCycles();
  }

  @Test
  void theDeployersLayersDependOnlyDownward() {
    // Top down: the front door (Deployers, Clusters, Mutators, TrainingClient); the kinds' and
    // the clusters' rooms; the job room (the vocabulary JobOptions, PodTemplate, PodMutator,
    // Cluster, ReplicaType, RestartPolicy, the JobDeployer base, and job.internal, the shared
    // machinery: rendering, cluster backends, the kind seam). Nothing below reaches up.
    String d = "dev.fairing4j.deployer";
    classes().that().resideInAnyPackage(d + ".job..")
        .should().onlyDependOnClassesThat(resideOutsideOfPackages(d, d + ".batch..",
            d + ".kubeflow..", d + ".kubernetes..", d + ".local..", d + ".monitor..",
            d + ".mutate..", d + ".serving..", d + ".storage..", d + ".trainer..",
            d + ".tuning.."))
        .check(SDK);
    classes().that().resideOutsideOfPackage(d)
        .should().onlyDependOnClassesThat(resideOutsideOfPackage(d))
        .because("the front door is the top layer: no room reaches up into it")
        .check(SDK);
  }

  private static SliceRule roomsAreFreeOfCycles() {
    return SlicesRuleDefinition.slices().assignedFrom(ROOMS).should().beFreeOfCycles();
  }

  /** Each SDK class's room: its package up to the first {@code internal} segment. */
  private static final SliceAssignment ROOMS = new SliceAssignment() {
    @Override
    public SliceIdentifier getIdentifierOf(JavaClass type) {
      String pkg = type.getPackageName();
      if (!pkg.startsWith("dev.fairing4j.")) {
        return SliceIdentifier.ignore();
      }
      int internal = (pkg + ".").indexOf(".internal.");
      return SliceIdentifier.of(internal < 0 ? pkg : pkg.substring(0, internal));
    }

    @Override
    public String getDescription() {
      return "rooms (a package with the packages below it on an internal path)";
    }
  };

  @Test
  void noDependencyCycleOfClassesCrossesAPackageBoundary() {
    // Within a room, packages may call each other (a face and its machinery); what must not
    // happen is a loop of classes through such a boundary, e.g. LocalCluster ->
    // LocalJobDirectory (local.internal) -> LocalCluster: then neither side can change or be
    // understood alone. Nested classes count as their top-level class.
    List<String> crossing = new ArrayList<>();
    for (Set<String> cycle : ClassCycles.of(SDK)) {
      Set<String> packages = new TreeSet<>();
      cycle.forEach(c -> packages.add(c.substring(0, c.lastIndexOf('.'))));
      if (packages.size() > 1) {
        crossing.add(packages + ": " + cycle);
      }
    }
    assertThat(crossing).isEmpty();
  }

  /**
   * Public or protected members and the class header (superclass, interfaces, type parameters)
   * of a public class name no {@code ..internal..} type, generic type arguments included.
   */
  private static ArchCondition<JavaClass> exposeNoInternalType() {
    return new ArchCondition<>("expose no type of an ..internal.. package") {
      @Override
      public void check(JavaClass type, ConditionEvents events) {
        List<String> leaks = new ArrayList<>();
        type.getSuperclass().ifPresent(s -> note(leaks, "extends", s));
        type.getInterfaces().forEach(i -> note(leaks, "implements", i));
        type.getTypeParameters().forEach(p -> p.getBounds()
            .forEach(b -> note(leaks, "type parameter " + p.getName(), b)));
        for (JavaField field : type.getFields()) {
          if (visible(field.getModifiers())) {
            note(leaks, "field " + field.getName(), field.getType());
          }
        }
        for (JavaCodeUnit unit : type.getCodeUnits()) {
          if (!visible(unit.getModifiers()) || unit.getName().equals("<clinit>")) {
            continue;
          }
          String where = unit.getName() + "(..)";
          note(leaks, where + " returns", unit.getReturnType());
          unit.getParameterTypes().forEach(p -> note(leaks, where + " takes", p));
          unit.getTypeParameters().forEach(p -> p.getBounds()
              .forEach(b -> note(leaks, where + " type parameter", b)));
          unit.getExceptionTypes().forEach(e -> note(leaks, where + " throws", e));
        }
        for (String leak : leaks) {
          events.add(SimpleConditionEvent.violated(type, type.getName() + ": " + leak));
        }
      }
    };
  }

  private static boolean visible(Set<JavaModifier> modifiers) {
    return modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED);
  }

  private static void note(List<String> leaks, String where, JavaType type) {
    for (JavaClass named : type.getAllInvolvedRawTypes()) {
      if (named.getPackageName().contains(".internal")
          && named.getPackageName().startsWith("dev.fairing4j")) {
        leaks.add(where + " " + named.getName());
      }
    }
  }
}
