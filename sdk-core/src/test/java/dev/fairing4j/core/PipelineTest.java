package dev.fairing4j.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The pipeline's own contract: immutability, validation before any stage touches the outside, and
 * the order of stages. The stages here record what they were asked to do; the real ones are tested
 * in their modules against real registries, clusters and processes.
 */
class PipelineTest {
  private final List<String> calls = new ArrayList<>();
  private final BuildContext context = BuildContext.empty()
      .withFile("/app/train.py", ContextFile.ofText("print('hi')\n"))
      .withCommand(List.of("python", "-u", "/app/train.py"));

  @Test
  void everyFluentCallReturnsANewPipelineAndLeavesTheOldOne() {
    Pipeline empty = Fairing.pipeline();
    Pipeline withPre = empty.preprocessor(() -> context);

    assertThat(withPre).isNotSameAs(empty);
    assertThat(empty.preprocessor()).isEmpty();
    assertThat(withPre.preprocessor()).isPresent();
    assertThat(Fairing.pipeline()).isSameAs(empty);
  }

  @Test
  void runValidatesEveryStageBeforeBuildingAnything() {
    RecordingDeployer deployer = new RecordingDeployer(true) {
      @Override
      public void validate(BuildContext ctx) {
        calls.add("validate deployer");
        throw InvalidInputException.of("workers", "-1 is below the minimum of 0", "use 0 or more");
      }
    };
    Pipeline pipeline = Fairing.pipeline().preprocessor(() -> context)
        .builder(new RecordingBuilder()).deployer(deployer);

    assertThatThrownBy(pipeline::run).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("workers");
    assertThat(calls).containsExactly("validate deployer");
  }

  @Test
  void runBuildsThenDeploysTheDigestPinnedImage() {
    List<ProgressEvent> events = new ArrayList<>();
    TrainingJob job = Fairing.pipeline().preprocessor(() -> context)
        .builder(new RecordingBuilder()).deployer(new RecordingDeployer(true))
        .progress(events::add)
        .run();

    assertThat(calls).containsExactly("validate deployer", "validate builder", "build",
        "deploy registry.example.com/team/mnist@sha256:" + "cd".repeat(32));
    assertThat(job.name()).isEqualTo("mnist");
    assertThat(events).filteredOn(e -> e instanceof ProgressEvent.StepFinished)
        .extracting(e -> ((ProgressEvent.StepFinished) e).step())
        .containsExactly("build image", "submit mnist");
  }

  @Test
  void aDeployerThatRunsTheContextDirectlyGetsNoImageAndNothingIsBuiltOrChecked() {
    Fairing.pipeline().preprocessor(() -> context)
        .builder(new RecordingBuilder()).deployer(new RecordingDeployer(false))
        .run();

    // Nothing is built, so the build's own settings (a target, say) need not be there.
    assertThat(calls).containsExactly("validate deployer", "deploy (no image)");
  }

  @Test
  void theDeployerRunsWhatTheBuildersImageHoldsAndTheBuilderBuildsFromThePreparedContext() {
    BuildContext translated = context.withArgs(List.of("--from-the-image")).withWorkingDir("/srv");
    ImageBuilder dockerfileLike = new RecordingBuilder() {
      @Override
      public BuildContext imageContext(BuildContext prepared) {
        calls.add("image context of " + prepared.workingDir());
        return translated;
      }

      @Override
      public ImageRef build(BuildContext built, ProgressListener progress) {
        calls.add("build from " + built.workingDir());
        return ImageRef.parse("registry.example.com/team/mnist@sha256:" + "cd".repeat(32));
      }
    };
    List<BuildContext> deployed = new ArrayList<>();
    RecordingDeployer deployer = new RecordingDeployer(true) {
      @Override
      public TrainingJob deploy(BuildContext runs, Optional<ImageRef> image,
          ProgressListener progress) {
        deployed.add(runs);
        return super.deploy(runs, image, progress);
      }
    };

    Fairing.pipeline().preprocessor(() -> context).builder(dockerfileLike).deployer(deployer)
        .run();

    assertThat(calls).contains("image context of " + context.workingDir(),
        "build from " + context.workingDir());
    assertThat(deployed).containsExactly(translated);
  }

  @Test
  void dryRunRendersThePlannedImageAndBuildsNothing() {
    String yaml = Fairing.pipeline().preprocessor(() -> context)
        .builder(new RecordingBuilder()).deployer(new RecordingDeployer(true))
        .dryRun();

    assertThat(yaml).isEqualTo("image: registry.example.com/team/mnist:" + context.contentTag());
    assertThat(calls).doesNotContain("build").noneMatch(c -> c.startsWith("deploy"));
  }

  @Test
  void missingStagesAreNamedWithTheFix() {
    assertThatThrownBy(() -> Fairing.pipeline().run())
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("preprocessor")
        .hasMessageContaining("Preprocessors.python");
    assertThatThrownBy(() -> Fairing.pipeline().preprocessor(() -> context).dryRun())
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("deployer");
    assertThatThrownBy(() -> Fairing.pipeline().preprocessor(() -> context)
            .deployer(new RecordingDeployer(true)).run())
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("builder")
        .hasMessageContaining("Clusters.local()");
    assertThat(calls).isEmpty();
  }

  @Test
  void theBuildersPushCredentialsReachTheDeployerAsPullCredentials() {
    RegistryCredentials alice = new RegistryCredentials("registry.example.com", "alice",
        Secret.of("s3cret"));
    ImageBuilder privateBuilder = new RecordingBuilder() {
      @Override
      public Optional<RegistryCredentials> pullCredentials() {
        return Optional.of(alice);
      }
    };
    Pipeline pipeline = Fairing.pipeline().preprocessor(() -> context).builder(privateBuilder)
        .deployer(new RecordingDeployer(true));

    pipeline.dryRun();
    pipeline.run();

    assertThat(calls).filteredOn(c -> c.startsWith("pull credentials"))
        .containsExactly("pull credentials alice@registry.example.com",
            "pull credentials alice@registry.example.com");
    assertThat(calls).noneMatch(c -> c.contains("s3cret"));
  }

  @Test
  void aDeployerThatPullsNoImageGetsNoCredentials() {
    ImageBuilder privateBuilder = new RecordingBuilder() {
      @Override
      public Optional<RegistryCredentials> pullCredentials() {
        return Optional.of(new RegistryCredentials("r.io", "alice", Secret.of("x")));
      }
    };
    Fairing.pipeline().preprocessor(() -> context).builder(privateBuilder)
        .deployer(new RecordingDeployer(false)).run();

    assertThat(calls).noneMatch(c -> c.startsWith("pull credentials"));
  }

  @Test
  void aListenerThatThrowsDoesNotBreakTheRun() {
    TrainingJob job = Fairing.pipeline().preprocessor(() -> context)
        .builder(new RecordingBuilder()).deployer(new RecordingDeployer(true))
        .progress(event -> {
          throw new IllegalStateException("display broke");
        })
        .run();

    assertThat(job.name()).isEqualTo("mnist");
  }

  @Test
  void serveBuildsWithPullCredentialsThenServesAndReturnsTheEndpoint() {
    RegistryCredentials alice = new RegistryCredentials("registry.example.com", "alice",
        Secret.of("s3cret"));
    ImageBuilder privateBuilder = new RecordingBuilder() {
      @Override
      public Optional<RegistryCredentials> pullCredentials() {
        return Optional.of(alice);
      }
    };
    List<ProgressEvent> events = new ArrayList<>();

    Endpoint endpoint = Fairing.pipeline().preprocessor(() -> context).builder(privateBuilder)
        .deployer(new RecordingEndpointDeployer()).progress(events::add).serve();

    assertThat(endpoint.name()).isEqualTo("mnist-serve");
    // The endpoint is checked as it is created: with the pull credentials, planned once.
    assertThat(calls).containsExactly("pull credentials alice@registry.example.com",
        "validate endpoint", "validate builder", "build",
        "serve registry.example.com/team/mnist@sha256:" + "cd".repeat(32));
    assertThat(events).filteredOn(e -> e instanceof ProgressEvent.StepFinished)
        .extracting(e -> ((ProgressEvent.StepFinished) e).step())
        .containsExactly("build image", "serve mnist-serve");
  }

  @Test
  void runRefusesAnEndpointDeployerAndServeATrainingOneBeforeAnythingIsBuilt() {
    Pipeline serving = Fairing.pipeline().preprocessor(() -> context)
        .builder(new RecordingBuilder()).deployer(new RecordingEndpointDeployer());
    Pipeline training = serving.deployer(new RecordingDeployer(true));

    assertThatThrownBy(serving::run).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("mnist-serve serves a model").hasMessageContaining("serve()");
    assertThatThrownBy(training::serve).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("mnist runs a training job, not an endpoint")
        .hasMessageContaining("Deployers.serving");
    assertThatThrownBy(() -> new RecordingEndpointDeployer().deploy(context, Optional.empty(),
        ProgressListener.NONE)).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("serve()");
    assertThat(calls).isEmpty();
  }

  /** A deployer whose variants record their name and arguments when validated and deployed. */
  private class VaryingDeployer extends RecordingDeployer {
    private final JobVariant variant;

    VaryingDeployer(JobVariant variant) {
      super(true);
      this.variant = variant;
    }

    @Override
    public String jobName() {
      return variant == null ? "mnist" : variant.name();
    }

    @Override
    public Optional<Deployer> variant(JobVariant newVariant) {
      return Optional.of(new VaryingDeployer(newVariant));
    }

    @Override
    public TrainingJob deploy(BuildContext ctx, Optional<ImageRef> image,
        ProgressListener progress) {
      calls.add(jobName() + " " + (variant == null ? "" : variant.args() + " ")
          + image.flatMap(ImageRef::digest).orElseThrow().substring(0, 9));
      return null;
    }
  }

  @Test
  void buildPushesOnceAndEachVariantRunsFromThatImage() {
    BuiltPipeline built = Fairing.pipeline().preprocessor(() -> context)
        .builder(new RecordingBuilder()).deployer(new VaryingDeployer(null)).build();
    assertThat(calls).containsExactly("validate deployer", "validate builder", "build");
    calls.clear();

    built.run(JobVariant.named("mnist-1").args(List.of("--lr=0.1")));
    built.run(JobVariant.named("mnist-2").args(List.of("--lr=0.01")));
    built.run();

    assertThat(calls).containsExactly(
        "validate deployer", "mnist-1 [--lr=0.1] sha256:cd",
        "validate deployer", "mnist-2 [--lr=0.01] sha256:cd",
        "mnist sha256:cd");
    assertThat(built.image()).hasValueSatisfying(image -> assertThat(image.reference())
        .endsWith("@sha256:" + "cd".repeat(32)));
    assertThat(built.toString()).contains("job=mnist", "@sha256:cd");
  }

  @Test
  void thePlanCheckedBeforeTheBuildIsTheOneSubmittedAndEachLaterRunPlansItsOwn() {
    Pipeline pipeline = Fairing.pipeline().preprocessor(() -> context)
        .builder(new RecordingBuilder()).deployer(new PlanningDeployer());

    pipeline.run();
    assertThat(calls).containsExactly("plan 1", "validate builder", "build", "deploy plan 1");
    calls.clear();

    BuiltPipeline built = pipeline.build();
    built.run();
    built.run();
    assertThat(calls).containsExactly("plan 2", "validate builder", "build", "deploy plan 2",
        "plan 3", "deploy plan 3");
    calls.clear();

    assertThat(pipeline.dryRun()).isEqualTo("plan 4 with registry.example.com/team/mnist:"
        + context.contentTag());
  }

  @Test
  void aDeployerWithoutVariantsAndAServingOneAreRefusedByName() {
    BuiltPipeline built = Fairing.pipeline().preprocessor(() -> context)
        .builder(new RecordingBuilder()).deployer(new RecordingDeployer(true)).build();
    assertThatThrownBy(() -> built.run(JobVariant.named("mnist-1")))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field())
            .isEqualTo("deployer"))
        .hasMessageContaining("cannot run variants of its job");
    assertThatThrownBy(() -> Fairing.pipeline().preprocessor(() -> context)
        .deployer(new RecordingDeployer(true)).variant(JobVariant.named("x")))
        .hasMessageContaining("implement Deployer.variant");
    assertThatThrownBy(() -> JobVariant.named("Bad_Name")).isInstanceOf(
        InvalidInputException.class).hasMessageContaining("name");

    Pipeline serving = Fairing.pipeline().preprocessor(() -> context)
        .deployer(new RecordingEndpointDeployer());
    assertThatThrownBy(serving::build).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("call serve()");
  }

  private class RecordingEndpointDeployer implements EndpointDeployer {
    @Override
    public String jobName() {
      return "mnist-serve";
    }

    @Override
    public void validate(BuildContext ctx) {
      calls.add("validate endpoint");
    }

    @Override
    public EndpointDeployer withPullCredentials(RegistryCredentials credentials) {
      calls.add("pull credentials " + credentials);
      return this;
    }

    @Override
    public String render(BuildContext ctx, Optional<ImageRef> image) {
      return "image: " + image.map(ImageRef::reference).orElse("(none)");
    }

    @Override
    public Endpoint serve(BuildContext ctx, Optional<ImageRef> image,
        ProgressListener progress) {
      calls.add("serve " + image.map(ImageRef::reference).orElse("(no image)"));
      return new Endpoint() {
        @Override
        public String name() {
          return "mnist-serve";
        }

        @Override
        public String namespace() {
          return "default";
        }

        @Override
        public String kind() {
          return "Deployment";
        }

        @Override
        public String modelName() {
          return "mnist";
        }

        @Override
        public String url() {
          return "http://mnist-serve.default.svc.cluster.local/v1/models/mnist:predict";
        }

        @Override
        public EndpointStatus status() {
          throw new UnsupportedOperationException("not needed here");
        }

        @Override
        public EndpointStatus waitUntilReady(java.time.Duration timeout) {
          throw new UnsupportedOperationException("not needed here");
        }

        @Override
        public String predict(String requestJson) {
          throw new UnsupportedOperationException("not needed here");
        }

        @Override
        public List<Object> predict(List<?> instances) {
          throw new UnsupportedOperationException("not needed here");
        }

        @Override
        public JobLogs logs() {
          throw new UnsupportedOperationException("not needed here");
        }

        @Override
        public void delete() {}
      };
    }
  }

  private class RecordingBuilder implements ImageBuilder {
    @Override
    public ImageRef plannedImage(BuildContext ctx) {
      return ImageRef.parse("registry.example.com/team/mnist").withTag(ctx.contentTag());
    }

    @Override
    public void validate(BuildContext ctx) {
      calls.add("validate builder");
    }

    @Override
    public ImageRef build(BuildContext ctx, ProgressListener progress) {
      calls.add("build");
      return plannedImage(ctx).withDigest("sha256:" + "cd".repeat(32));
    }
  }

  /** A deployer that renders in its plan, numbering them. */
  private class PlanningDeployer extends RecordingDeployer {
    private int plans;

    PlanningDeployer() {
      super(true);
    }

    @Override
    public DeploymentPlan plan(BuildContext ctx) {
      String plan = "plan " + ++plans;
      calls.add(plan);
      DeploymentPlan submitted = DeploymentPlan.validated(new RecordingDeployer(true) {
        @Override
        public void validate(BuildContext c) {}

        @Override
        public String render(BuildContext c, Optional<ImageRef> image) {
          return plan + " with " + image.map(ImageRef::reference).orElse("(none)");
        }

        @Override
        public TrainingJob deploy(BuildContext c, Optional<ImageRef> image,
            ProgressListener progress) {
          calls.add("deploy " + plan);
          return null;
        }
      }, ctx);
      return submitted;
    }
  }

  private class RecordingDeployer implements Deployer {
    private final boolean needsImage;

    RecordingDeployer(boolean needsImage) {
      this.needsImage = needsImage;
    }

    @Override
    public String jobName() {
      return "mnist";
    }

    @Override
    public void validate(BuildContext ctx) {
      calls.add("validate deployer");
    }

    @Override
    public boolean needsImage() {
      return needsImage;
    }

    @Override
    public Deployer withPullCredentials(RegistryCredentials credentials) {
      calls.add("pull credentials " + credentials);
      return this;
    }

    @Override
    public String render(BuildContext ctx, Optional<ImageRef> image) {
      return "image: " + image.map(ImageRef::reference).orElse("(none)");
    }

    @Override
    public TrainingJob deploy(BuildContext ctx, Optional<ImageRef> image,
        ProgressListener progress) {
      calls.add("deploy " + image.map(ImageRef::reference).orElse("(no image)"));
      return new TrainingJob() {
        @Override
        public String name() {
          return "mnist";
        }

        @Override
        public String namespace() {
          return "default";
        }

        @Override
        public String kind() {
          return "PyTorchJob";
        }

        @Override
        public JobStatus status() {
          throw new UnsupportedOperationException("not needed here");
        }

        @Override
        public JobStatus waitForCompletion(java.time.Duration timeout) {
          throw new UnsupportedOperationException("not needed here");
        }

        @Override
        public JobLogs logs() {
          throw new UnsupportedOperationException("not needed here");
        }

        @Override
        public void delete() {}
      };
    }
  }
}
