// fairing4j from JShell: a hyperparameter search in a few lines. The SDK proposes the trials,
// runs each as an ordinary job (here on this machine; Clusters.kubernetes() needs no Katib) and
// reads the objective from what the script prints, Katib's way: accuracy=0.91.
//   scripts/jshell.sh sdk-examples/jshell/tune.jsh
// Afterwards `search` stays defined: search.results(), search.trialJob(1).get().logs(),
// search.delete() removes the trials' jobs.
import dev.fairing4j.core.*;
import dev.fairing4j.builder.*;
import dev.fairing4j.deployer.*;
import dev.fairing4j.deployer.tuning.*;
import java.nio.file.*;
import java.time.Duration;

// A stand-in for a training script (no torch needed): argparse, logging to stderr, and the
// metric printed as name=value. Its accuracy peaks at lr=0.03 and prefers the "adam" optimizer.
var script = Files.writeString(Files.createTempDirectory("tune").resolve("train.py"), """
    import argparse, logging, math, sys
    logging.basicConfig(stream=sys.stderr, level=logging.INFO)
    parser = argparse.ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--optimizer", default="sgd")
    args = parser.parse_args()
    logging.info("training with lr %s and %s", args.lr, args.optimizer)
    accuracy = 0.9 - 0.1 * math.log10(args.lr / 0.03) ** 2 + (0.05 if args.optimizer == "adam" else 0)
    print(f"accuracy={accuracy:.4f}")
    """);

// The pipeline you already run; the deployer's name is replaced by each trial's (tune-1, tune-2..).
var pipeline = Fairing.pipeline().
    preprocessor(Preprocessors.python(script)).
    deployer(Deployers.pyTorchJob("train").workers(0).on(Clusters.local()));

var search = Experiment.of("tune", pipeline).
    parameter("lr", Search.logUniform(0.001, 0.1)).
    parameter("optimizer", Search.choice("sgd", "adam")).
    objective(Objective.maximize("accuracy")).
    algorithm(Algorithm.random(42)).
    maxTrials(6).parallel(2).
    run();

var results = search.waitForCompletion(Duration.ofMinutes(5));
System.out.println(results);
System.out.println("best: " + results.best().map(Trial::describeParameters).orElse("none"));
