// fairing4j from JShell: the least a served model takes. A predictor is a Python class with
// load() and predict(instances); the SDK adds a model server speaking KServe's V1 protocol.
//   scripts/jshell.sh sdk-examples/jshell/serve.jsh
// Afterwards `endpoint` stays defined (and serving) for exploring: endpoint.predict(List.of(37)),
// endpoint.status(), endpoint.logs().snapshot(); endpoint.delete() stops it.
import dev.fairing4j.core.*;
import dev.fairing4j.builder.*;
import dev.fairing4j.deployer.*;
import java.nio.file.*;
import java.time.Duration;
import java.util.List;

// A model in a few lines of plain Python (no torch, no numpy): Celsius to Fahrenheit.
var predictor = Files.writeString(Files.createTempDirectory("serve").resolve("celsius.py"), """
    class Celsius:
        def load(self):                      # once, before the endpoint reports ready
            self.scale, self.offset = 1.8, 32.0
        def predict(self, instances):        # a list in, a list out
            return [c * self.scale + self.offset for c in instances]
    """);

// This machine; for a real cluster use Clusters.kubernetes() and add a .builder(Builders.jib(..).pushTo(..)).
var endpoint = Fairing.pipeline().
    preprocessor(Preprocessors.predictor(predictor)).
    deployer(Deployers.serving("celsius").replaceExisting().on(Clusters.local())).
    serve();

System.out.println(endpoint.waitUntilReady(Duration.ofMinutes(2)).toTable());
System.out.println("predictions: " + endpoint.predict(List.of(0, 100, -40)));
System.out.println("raw: " + endpoint.predict("{\"instances\": [37]}"));
