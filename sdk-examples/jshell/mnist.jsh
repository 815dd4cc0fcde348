// fairing4j from JShell: FashionMNIST data-parallel training (1 Master + 1 Worker, a 2,000-sample
// subset) on this machine, through the same front door a real cluster uses.
//   scripts/jshell.sh sdk-examples/jshell/mnist.jsh
// Afterwards `job`, `cluster` and `pipeline` stay defined for exploring: job.status(),
// job.metrics(), job.logs().tail(5).snapshot(), pipeline.dryRun() ...
import dev.fairing4j.core.*;
import dev.fairing4j.builder.*;
import dev.fairing4j.deployer.*;
import dev.fairing4j.examples.*;
import java.nio.file.*;
import java.time.Duration;

// This machine; for a real cluster use Clusters.kubernetes() and add a .builder(Builders.jib(..).pushTo(..)).
var cluster = Clusters.local();

// The jshell tool runs a statement as soon as a line completes it, so chains end lines with a dot.
var pipeline = Fairing.pipeline().
    preprocessor(Preprocessors.python(ExampleScripts.extract("mnist_ddp.py"))).
    deployer(Deployers.pyTorchJob("fashion-mnist-jshell").workers(1).
        args("--epochs=1", "--samples=2000", "--test-samples=1000").
        mutate(Mutators.pvc("traindb-models-claim", "/opt/mnist/models")).
        replaceExisting().
        on(cluster)).
    progress(ConsoleProgress.auto());

var job = pipeline.run();

try (var logs = job.logs().follow(System.out::println)) {
    job.waitForCompletion(Duration.ofMinutes(10));
    logs.awaitEnd(Duration.ofSeconds(10));
}

System.out.println(job.status().toTable());
// The latest loss and accuracy of each replica, read from their logs; plot() draws the curves.
System.out.println(job.metrics());
var models = cluster.claimDir("traindb-models-claim");
System.out.println("model: " + models.resolve("mnist_cnn.pt"));
var plot = job.metrics().plot().save(models.resolve("fashion-mnist-jshell-metrics.png"));
System.out.println("plot: " + plot);
