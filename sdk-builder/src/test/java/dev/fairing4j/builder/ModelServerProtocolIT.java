package dev.fairing4j.builder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.fairing4j.builder.internal.preprocess.ModelServer;
import dev.fairing4j.core.testing.Tools;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * fairing4j's model server as the image runs it ({@code python fairing4j_model_server.py
 * --predictor ...}, the same text {@link ModelServer} ships), a real process spoken to over
 * loopback, endpoint by endpoint against the Open Inference Protocol's required REST API
 * (KServe's {@code docs/predict-api/v2/required_api.md}) and KServe's V1 protocol: server and
 * model metadata, versioned paths, nested and flat tensor data, several inputs, requested
 * outputs, datatypes and shapes checked, the protocol's errors with their status (405, 400 for a
 * bad or negative Content-Length without hanging, 400 for a body nested 5,000 deep), 200
 * concurrent clients without a reset, and predictors written for KServe's SDK: through the
 * server's {@code kserve.Model} stand-in where there is no {@code kserve} package, and as their
 * own server where there is one.
 */
@Timeout(120)
class ModelServerProtocolIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String LINEAR = """
      class Linear:
          def load(self):
              self.w = [2.0, -1.0]

          def get_input_types(self):
              return [{"name": "x", "datatype": "FP32", "shape": [-1, 2]}]

          def get_output_types(self):
              return [{"name": "y", "datatype": "FP32", "shape": [-1]}]

          def predict(self, instances):
              return [self.w[0] * a + self.w[1] * b + 0.5 for a, b in instances]

          def explain(self, instances):
              return {"explanations": [[self.w[0] * a, self.w[1] * b] for a, b in instances]}
      """;
  private static final String TWO_INPUTS = """
      def predict(inputs):
          # several inputs arrive as a dict by input name; a dict answer is one output per key
          return {"sum": [a + b for a, b in zip(inputs["a"], inputs["b"])],
                  "product": [a * b for a, b in zip(inputs["a"], inputs["b"])]}
      """;
  /** KServe's custom-model sample (python/custom_model/model.py) without torchvision and PIL. */
  private static final String KSERVE_CUSTOM = """
      import argparse
      from typing import Dict, Union

      from kserve import (
          Model,
          ModelServer,
          model_server,
          InferRequest,
          InferOutput,
          InferResponse,
          logging,
      )
      from kserve.errors import InvalidInput
      from kserve.utils.utils import generate_uuid


      class DoublingModel(Model):
          def __init__(self, name: str):
              super().__init__(name, return_response_headers=True)
              self.ready = False
              self.load()

          def load(self):
              self.factor = 2.0
              self.ready = True

          def preprocess(self, payload: Union[Dict, InferRequest], headers: Dict[str, str] = None):
              if isinstance(payload, Dict) and "instances" in payload:
                  headers["request-type"] = "v1"
                  return [float(x) for x in payload["instances"]]
              elif isinstance(payload, InferRequest):
                  return [float(x) for x in payload.inputs[0].data]
              raise InvalidInput("invalid payload")

          ASYNC_DEF predict(self, xs, headers: Dict[str, str] = None,
                            response_headers: Dict[str, str] = None):
              result = [self.factor * x for x in xs]
              if response_headers is not None:
                  response_headers["prediction-time-latency"] = "0.1"
              if "request-type" in headers and headers["request-type"] == "v1":
                  return {"predictions": result}
              output = InferOutput(name="output-0", shape=[len(result)], datatype="FP32",
                                   data=result)
              return InferResponse(model_name=self.name, infer_outputs=[output],
                                   response_id=generate_uuid())


      parser = argparse.ArgumentParser(parents=[model_server.parser])
      args, _ = parser.parse_known_args()

      if __name__ == "__main__":
          if args.configure_logging:
              logging.configure_logging(args.log_config_file)
          model = DoublingModel(args.model_name)
          model.load()
          ModelServer().start([model])
      """;

  @TempDir Path dir;
  private final List<Process> started = new ArrayList<>();
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(2)).build();

  @AfterEach
  void stop() throws InterruptedException {
    for (Process process : started) {
      process.destroy();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }

  private static Path python() {
    return Files.isExecutable(Path.of("/usr/bin/python3")) ? Path.of("/usr/bin/python3")
        : Tools.require("python3", "python3");
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /** A running server: its port, its process and the log it writes. */
  private record Server(int port, Process process, Path log) {
    String logText() throws IOException {
      return Files.readString(log);
    }
  }

  private Server start(String fileName, String predictor, Map<String, String> env,
      String... args) throws Exception {
    Path serverDir = Files.createDirectories(dir.resolve(".fairing4j"));
    Path server = Files.writeString(serverDir.resolve(ModelServer.FILE_NAME),
        ModelServer.script());
    Files.writeString(serverDir.resolve(ModelServer.KSERVE_FILE_NAME), ModelServer.kserveScript());
    Path file = Files.writeString(dir.resolve(fileName), predictor);
    int port = freePort();
    List<String> command = new ArrayList<>(List.of(python().toString(), server.toString(),
        "--predictor", file.toString(), "--http_port", String.valueOf(port)));
    command.addAll(List.of(args));
    Path log = dir.resolve(fileName + "." + port + ".log");
    ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
        .redirectErrorStream(true).redirectOutput(log.toFile());
    builder.environment().put("FAIRING4J_SERVER_HOST", "127.0.0.1");
    builder.environment().remove("KUBERNETES_SERVICE_HOST");
    builder.environment().putAll(env);
    Process process = builder.start();
    started.add(process);
    Server running = new Server(port, process, log);
    long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < end) {
      if (!process.isAlive()) {
        return running;  // the caller reads why from the log
      }
      if (get(running, "/v2/health/ready").status() == 200) {
        return running;
      }
      Thread.sleep(50);
    }
    throw new AssertionError("not ready in 30 s: " + running.logText());
  }

  private record Answer(int status, String body, Map<String, List<String>> headers) {
    JsonNode json() throws IOException {
      return JSON.readTree(body);
    }

    Optional<String> header(String name) {
      return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
          .flatMap(e -> e.getValue().stream()).findFirst();
    }
  }

  private Answer get(Server server, String path) throws Exception {
    return send(server, "GET", path, null);
  }

  private Answer post(Server server, String path, String body) throws Exception {
    return send(server, "POST", path, body);
  }

  private Answer send(Server server, String method, String path, String body) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + server.port() + path)).timeout(Duration.ofSeconds(10)).method(method, body == null
        ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    try {
      HttpResponse<String> response = http.send(request.build(),
          HttpResponse.BodyHandlers.ofString());
      return new Answer(response.statusCode(), response.body(), response.headers().map());
    } catch (java.net.ConnectException refused) {
      return new Answer(-1, "", Map.of());
    }
  }

  /** What the server answers to {@code request}, written as it is on a raw connection. */
  private static String raw(Server server, String request) throws IOException {
    try (Socket socket = new Socket("127.0.0.1", server.port())) {
      socket.setSoTimeout(5_000);  // a hang fails the test instead of stalling it
      OutputStream out = socket.getOutputStream();
      out.write(request.getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      InputStream in = socket.getInputStream();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void serverMetadataHealthAndModelMetadataAnswerAsTheProtocolSays() throws Exception {
    Server server = start("linear.py", LINEAR, Map.of());

    JsonNode metadata = get(server, "/v2").json();
    assertThat(metadata.get("name").asText()).isEqualTo("fairing4j-model-server");
    assertThat(metadata.get("version").asText()).isNotEmpty();
    assertThat(metadata.get("extensions").isArray()).isTrue();
    assertThat(get(server, "/v2/health/live").status()).isEqualTo(200);
    assertThat(get(server, "/v2/health/ready").json().get("ready").asBoolean()).isTrue();
    assertThat(get(server, "/v2/models/linear/ready").status()).isEqualTo(200);

    JsonNode model = get(server, "/v2/models/linear").json();
    assertThat(model.get("name").asText()).isEqualTo("linear");
    assertThat(model.get("platform").asText()).isNotEmpty();
    assertThat(model.get("inputs").toString())
        .isEqualTo("[{\"name\":\"x\",\"datatype\":\"FP32\",\"shape\":[-1,2]}]");
    assertThat(model.get("outputs").toString())
        .isEqualTo("[{\"name\":\"y\",\"datatype\":\"FP32\",\"shape\":[-1]}]");
    assertThat(model.has("versions")).as("no version declared").isFalse();
    // Unversioned, the model's one version answers a versioned path.
    assertThat(get(server, "/v2/models/linear/versions/7/ready").status()).isEqualTo(200);
    assertThat(get(server, "/v2/models/other").status()).isEqualTo(404);
    assertThat(get(server, "/v2/models/other").json().get("error").asText())
        .contains("other", "linear");
  }

  @Test
  void aDeclaredVersionIsListedAndOtherVersionsAreNotFound() throws Exception {
    Server server = start("linear.py", LINEAR, Map.of(), "--model_version", "3");

    assertThat(get(server, "/v2/models/linear").json().get("versions").toString())
        .isEqualTo("[\"3\"]");
    assertThat(get(server, "/v2/models/linear/versions/3").status()).isEqualTo(200);
    Answer infer = post(server, "/v2/models/linear/versions/3/infer", "{\"inputs\": [{\"name\":"
        + " \"x\", \"shape\": [1, 2], \"datatype\": \"FP32\", \"data\": [1, 2]}]}");
    assertThat(infer.status()).isEqualTo(200);
    assertThat(infer.json().get("model_version").asText()).isEqualTo("3");
    Answer other = get(server, "/v2/models/linear/versions/4/ready");
    assertThat(other.status()).isEqualTo(404);
    assertThat(other.json().get("error").asText()).isEqualTo(
        "model linear has version 3 only, not 4");
  }

  @Test
  void inferTakesNestedAndFlatDataAndNamesItsDeclaredOutput() throws Exception {
    Server server = start("linear.py", LINEAR, Map.of());

    Answer flat = post(server, "/v2/models/linear/infer", "{\"id\": \"r1\", \"inputs\":"
        + " [{\"name\": \"x\", \"shape\": [2, 2], \"datatype\": \"FP32\", \"data\":"
        + " [1, 2, 3, 1]}]}");
    Answer nested = post(server, "/v2/models/linear/infer", "{\"id\": \"r2\", \"inputs\":"
        + " [{\"name\": \"x\", \"shape\": [2, 2], \"datatype\": \"FP32\", \"data\": [[1, 2],"
        + " [3, 1]]}]}");
    assertThat(flat.status()).as(flat.body()).isEqualTo(200);
    assertThat(nested.status()).as(nested.body()).isEqualTo(200);
    JsonNode output = nested.json().get("outputs").get(0);
    assertThat(output.get("name").asText()).isEqualTo("y");
    assertThat(output.get("datatype").asText()).isEqualTo("FP32");
    assertThat(output.get("shape").toString()).isEqualTo("[2]");
    assertThat(output.get("data").get(0).asDouble()).isCloseTo(0.5, within(1e-9));
    assertThat(output.get("data").get(1).asDouble()).isCloseTo(5.5, within(1e-9));
    assertThat(flat.json().get("outputs")).isEqualTo(nested.json().get("outputs"));
    assertThat(nested.json().get("id").asText()).isEqualTo("r2");
    assertThat(nested.json().get("model_name").asText()).isEqualTo("linear");
    assertThat(nested.json().has("model_version")).isFalse();
  }

  @Test
  void severalInputsReachThePredictorByNameAndRequestedOutputsAreHonoured() throws Exception {
    Server server = start("pair.py", TWO_INPUTS, Map.of());
    String inputs = "\"inputs\": [{\"name\": \"a\", \"shape\": [3], \"datatype\": \"INT32\","
        + " \"data\": [1, 2, 3]}, {\"name\": \"b\", \"shape\": [3], \"datatype\": \"INT32\","
        + " \"data\": [4, 5, 6]}]";

    Answer all = post(server, "/v2/models/pair/infer", "{" + inputs + "}");
    assertThat(all.status()).as(all.body()).isEqualTo(200);
    assertThat(all.json().get("outputs")).extracting(o -> o.get("name").asText())
        .containsExactly("sum", "product");
    Answer one = post(server, "/v2/models/pair/infer", "{" + inputs + ", \"outputs\":"
        + " [{\"name\": \"product\"}]}");
    assertThat(one.json().get("outputs")).hasSize(1);
    assertThat(one.json().get("outputs").get(0).get("data").toString()).isEqualTo("[4,10,18]");
    assertThat(one.json().get("outputs").get(0).get("datatype").asText()).isEqualTo("INT64");
    Answer unknown = post(server, "/v2/models/pair/infer", "{" + inputs + ", \"outputs\":"
        + " [{\"name\": \"ratio\"}]}");
    assertThat(unknown.status()).isEqualTo(400);
    assertThat(unknown.json().get("error").asText())
        .isEqualTo("the model has no output ratio; it produces sum, product");
  }

  @Test
  void badTensorsAreRefusedWithWhatIsWrong() throws Exception {
    Server server = start("linear.py", LINEAR, Map.of());

    assertThat(badInfer(server, "\"shape\": [1, 2], \"datatype\": \"FOO\", \"data\": [1, 2]"))
        .startsWith("input x: \"datatype\" \"FOO\" is not a datatype of the protocol (one of"
            + " BOOL, UINT8");
    assertThat(badInfer(server, "\"shape\": [2, 2], \"datatype\": \"FP32\", \"data\": [1, 2, 3]"))
        .isEqualTo("input x: shape [2, 2] holds 4 values, data has 3");
    assertThat(badInfer(server, "\"shape\": [2, 2], \"datatype\": \"FP32\", \"data\":"
        + " [[1, 2, 3], [4]]")).isEqualTo("input x: data is ragged; nested data must be"
        + " rectangular");
    assertThat(badInfer(server, "\"shape\": [1, 2], \"datatype\": \"FP32\", \"data\":"
        + " [[1], [2]]")).isEqualTo("input x: data is nested as [2, 1] but shape is [1, 2]");
    assertThat(badInfer(server, "\"shape\": [1, 2], \"datatype\": \"FP32\", \"data\":"
        + " [\"a\", 2]")).isEqualTo("input x: datatype FP32 takes numbers, not \"a\"");
    assertThat(badInfer(server, "\"shape\": [1, 2], \"datatype\": \"UINT8\", \"data\":"
        + " [1, 300]")).isEqualTo("input x: 300 is out of range for UINT8 (0..255)");
    assertThat(badInfer(server, "\"shape\": [1, -2], \"datatype\": \"FP32\", \"data\": [1, 2]"))
        .startsWith("input x needs \"shape\": a list of non-negative integers");
    assertThat(badInfer(server, "\"shape\": [1, 3], \"datatype\": \"FP32\", \"data\": [1, 2, 3]"))
        .isEqualTo("input x has shape [1, 3]; the model takes [-1, 2] (-1: any size)");
    assertThat(badInfer(server, "\"shape\": [1, 2], \"datatype\": \"FP64\", \"data\": [1, 2]"))
        .isEqualTo("input x is FP64; the model takes FP32");
    Answer noInputs = post(server, "/v2/models/linear/infer", "{\"inputs\": []}");
    assertThat(noInputs.status()).isEqualTo(400);
    assertThat(noInputs.json().get("error").asText()).startsWith("the body needs \"inputs\"");
  }

  private String badInfer(Server server, String tensor) throws Exception {
    Answer answer = post(server, "/v2/models/linear/infer", "{\"inputs\": [{\"name\": \"x\", "
        + tensor + "}]}");
    assertThat(answer.status()).as(answer.body()).isEqualTo(400);
    return answer.json().get("error").asText();
  }

  @Test
  void v1StaysKServesV1() throws Exception {
    Server server = start("linear.py", LINEAR, Map.of());

    assertThat(get(server, "/v1/models").body()).isEqualTo("{\"models\": [\"linear\"]}");
    assertThat(get(server, "/v1/models/linear").json().get("ready").asBoolean()).isTrue();
    Answer predicted = post(server, "/v1/models/linear:predict", "{\"instances\": [[1, 2]]}");
    assertThat(predicted.body()).isEqualTo("{\"predictions\": [0.5]}");
    Answer explained = post(server, "/v1/models/linear:explain", "{\"instances\": [[1, 2]]}");
    assertThat(explained.body()).isEqualTo("{\"explanations\": [[2.0, -2.0]]}");
    assertThat(post(server, "/v1/models/other:predict", "{\"instances\": []}").status())
        .isEqualTo(404);
    Answer noInstances = post(server, "/v1/models/linear:predict", "{\"inputs\": [1]}");
    assertThat(noInstances.status()).isEqualTo(400);
    assertThat(noInstances.json().get("error").asText()).contains("\"instances\"");
  }

  @Test
  void aWrongMethodIs405WithAllowAndTheProtocolsErrorBody() throws Exception {
    Server server = start("linear.py", LINEAR, Map.of());

    Answer getPredict = get(server, "/v1/models/linear:predict");
    assertThat(getPredict.status()).isEqualTo(405);
    assertThat(getPredict.header("Allow")).contains("POST");
    assertThat(getPredict.json().get("error").asText()).isEqualTo(
        "this path takes POST, not GET");
    Answer getInfer = get(server, "/v2/models/linear/infer");
    assertThat(getInfer.status()).isEqualTo(405);
    Answer postMetadata = post(server, "/v2/models/linear", "{}");
    assertThat(postMetadata.status()).isEqualTo(405);
    assertThat(postMetadata.header("Allow")).contains("GET, HEAD");
    Answer unknown = get(server, "/v3/nothing");
    assertThat(unknown.status()).isEqualTo(404);
    assertThat(unknown.json().has("error")).isTrue();
  }

  @Test
  void aBadOrNegativeContentLengthIs400AndNothingHangs() throws Exception {
    Server server = start("linear.py", LINEAR, Map.of());
    String head = "POST /v1/models/linear:predict HTTP/1.1\r\nHost: x\r\n";

    for (String length : List.of("-1", "abc", "1e3", "")) {
      String answer = raw(server, head + "Content-Length: " + length + "\r\n\r\n");
      assertThat(answer).as("Content-Length: " + length).startsWith("HTTP/1.1 400 ")
          .contains("Connection: close", "is not a non-negative whole number");
    }
    assertThat(raw(server, head + "Content-Length: 3\r\nContent-Length: 4\r\n\r\nabcd"))
        .startsWith("HTTP/1.1 400 ").contains("two different Content-Length headers");
    assertThat(raw(server, head + "Content-Length: 999999999999\r\n\r\n"))
        .startsWith("HTTP/1.1 413 ");
    assertThat(raw(server, head + "Transfer-Encoding: chunked\r\n\r\nzz\r\n"))
        .startsWith("HTTP/1.1 400 ").contains("not hexadecimal");
    assertThat(raw(server, "NONSENSE\r\n\r\n")).startsWith("HTTP/1.1 400 ");
    // The server still answers after each of these.
    assertThat(get(server, "/v2/health/live").status()).isEqualTo(200);
  }

  @Test
  void aBodyNestedFiveThousandDeepIs400() throws Exception {
    Server server = start("linear.py", LINEAR, Map.of());
    String deep = "[".repeat(5_000) + "]".repeat(5_000);

    Answer v1 = post(server, "/v1/models/linear:predict", "{\"instances\": " + deep + "}");
    assertThat(v1.status()).isEqualTo(400);
    assertThat(v1.json().get("error").asText()).isEqualTo(
        "the body is nested too deeply to be a request");
    Answer v2 = post(server, "/v2/models/linear/infer", "{\"inputs\": [{\"name\": \"x\","
        + " \"shape\": [1], \"datatype\": \"FP32\", \"data\": " + "[".repeat(40) + "1"
        + "]".repeat(40) + "}]}");
    assertThat(v2.status()).isEqualTo(400);
    assertThat(v2.json().get("error").asText()).contains("nested deeper than 32 levels");
  }

  @Test
  void twoHundredConcurrentClientsGetAnswersWithoutAResetOnFewThreads() throws Exception {
    Server server = start("linear.py", LINEAR, Map.of("FAIRING4J_ACCESS_LOG", "0"));
    int clients = 200;
    CyclicBarrier together = new CyclicBarrier(clients);
    ExecutorService pool = Executors.newFixedThreadPool(clients);
    List<String> failures = Collections.synchronizedList(new ArrayList<>());
    List<Future<?>> done = new ArrayList<>();
    byte[] request = ("POST /v1/models/linear:predict HTTP/1.1\r\nHost: x\r\nContent-Type:"
        + " application/json\r\nContent-Length: 27\r\nConnection: close\r\n\r\n"
        + "{\"instances\": [[1.0, 2.0]]}").getBytes(StandardCharsets.US_ASCII);
    try {
      for (int c = 0; c < clients; c++) {
        done.add(pool.submit(() -> {
          for (int round = 0; round < 3; round++) {
            try {
              together.await(30, TimeUnit.SECONDS);  // every client connects at once
              try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", server.port()), 10_000);
                socket.setSoTimeout(30_000);
                socket.getOutputStream().write(request);
                String answer = new String(socket.getInputStream().readAllBytes(),
                    StandardCharsets.UTF_8);
                if (!answer.startsWith("HTTP/1.1 200 ") || !answer.endsWith(
                    "{\"predictions\": [0.5]}")) {
                  failures.add(answer);
                }
              }
            } catch (Exception e) {
              failures.add(e.toString());
            }
          }
          return null;
        }));
      }
      for (Future<?> each : done) {
        each.get(90, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(failures).as("600 requests from 200 clients at once").isEmpty();
    String status = Files.readString(Path.of("/proc", String.valueOf(server.process().pid()),
        "status"));
    int threads = Integer.parseInt(status.lines().filter(l -> l.startsWith("Threads:"))
        .findFirst().orElseThrow().replaceAll("\\D", ""));
    assertThat(threads).as("the event loop and the model thread, not a thread per client")
        .isLessThanOrEqualTo(4);
  }

  @Test
  void kserveCustomModelsRunUnchangedThroughTheStandIn() throws Exception {
    for (String def : List.of("def", "async def")) {
      Server server = start("doubling.py", KSERVE_CUSTOM.replace("ASYNC_DEF", def), Map.of(),
          "--model_name", "doubling");
      assertThat(server.process().isAlive()).as(server.logText()).isTrue();

      Answer v1 = post(server, "/v1/models/doubling:predict", "{\"instances\": [1, 2.5]}");
      assertThat(v1.body()).as(def).isEqualTo("{\"predictions\": [2.0, 5.0]}");
      assertThat(v1.header("prediction-time-latency")).contains("0.1");
      Answer v2 = post(server, "/v2/models/doubling/infer", "{\"id\": \"q\", \"inputs\":"
          + " [{\"name\": \"in\", \"shape\": [2], \"datatype\": \"FP32\", \"data\": [3, 4]}]}");
      assertThat(v2.status()).as(v2.body()).isEqualTo(200);
      assertThat(v2.json().get("outputs").get(0).get("data").toString()).isEqualTo("[6.0,8.0]");
      assertThat(v2.json().get("id").asText()).isEqualTo("q");
      Answer invalid = post(server, "/v1/models/doubling:predict", "{\"rows\": [1]}");
      assertThat(invalid.status()).as("kserve's InvalidInput").isEqualTo(400);
      assertThat(invalid.json().get("error").asText()).isEqualTo("invalid payload");
      Answer explain = post(server, "/v1/models/doubling:explain", "{\"instances\": [1]}");
      assertThat(explain.status()).isEqualTo(501);
      assertThat(server.logText()).contains("kserve is not installed in this image",
          "Registering model: doubling");
      server.process().destroy();
      assertThat(server.process().waitFor(10, TimeUnit.SECONDS)).isTrue();
      assertThat(server.process().exitValue()).as("stops on SIGTERM").isZero();
    }
  }

  @Test
  void aKserveModuleTheStandInLacksFailsNamingKserve() throws Exception {
    Server server = start("stored.py", """
        from kserve.storage import Storage
        import kserve
        """, Map.of());
    assertThat(server.process().waitFor(20, TimeUnit.SECONDS)).isTrue();
    assertThat(server.process().exitValue()).isNotZero();
    assertThat(server.logText()).contains("No module named 'kserve.storage': this image has no"
        + " kserve package", "add kserve to the image's requirements");
  }

  /**
   * KServe's SDK is on PyPI only, which these machines cannot reach: a package named kserve
   * stands in for it here (a stand-in made by this test, not a mock of a fault), to show the file
   * runs with the image's own kserve when there is one, with KServe's flags on its command line.
   */
  @Test
  void aFileForKserveRunsItsOwnServerWhereTheImageHasKserve() throws Exception {
    Path site = Files.createDirectories(dir.resolve("site/kserve"));
    Files.writeString(site.resolve("__init__.py"), """
        import json, sys
        from http.server import BaseHTTPRequestHandler, HTTPServer
        ARGV = list(sys.argv)
        class Model:
            def __init__(self, name):
                self.name, self.ready = name, False
            def load(self):
                self.ready = True
        class ModelServer:
            def start(self, models):
                port = int(ARGV[ARGV.index("--http_port") + 1])
                class Handler(BaseHTTPRequestHandler):
                    def do_GET(self):
                        body = json.dumps({"server": "image's kserve", "argv": ARGV,
                                           "models": [m.name for m in models]}).encode()
                        self.send_response(200)
                        self.send_header("Content-Length", str(len(body)))
                        self.end_headers()
                        self.wfile.write(body)
                HTTPServer(("127.0.0.1", port), Handler).serve_forever()
        """);
    Server server = start("own.py", """
        import kserve

        class Own(kserve.Model):
            pass

        if __name__ == "__main__":
            model = Own("own")
            model.load()
            kserve.ModelServer().start([model])
        """, Map.of("PYTHONPATH", dir.resolve("site").toString()), "--model_name", "own");

    JsonNode answer = get(server, "/anything").json();
    assertThat(answer.get("server").asText()).isEqualTo("image's kserve");
    assertThat(answer.get("models").toString()).isEqualTo("[\"own\"]");
    assertThat(answer.get("argv").toString()).contains("\"--http_port\",\"" + server.port()
        + "\"", "\"--model_name\",\"own\"", "\"--enable_grpc\",\"false\"");
  }

  /** As above, a package named kserve made here: one whose import fails on a missing module. */
  @Test
  void anImageWhoseKserveDoesNotImportServesThroughTheStandInAndSaysWhy() throws Exception {
    Path site = Files.createDirectories(dir.resolve("site/kserve"));
    Files.writeString(site.resolve("__init__.py"), "import fastapi_not_here_xyz\n");
    Server server = start("doubling.py", KSERVE_CUSTOM.replace("ASYNC_DEF", "def"),
        Map.of("PYTHONPATH", dir.resolve("site").toString()), "--model_name", "doubling");

    assertThat(post(server, "/v1/models/doubling:predict", "{\"instances\": [2]}").body())
        .isEqualTo("{\"predictions\": [4.0]}");
    assertThat(server.logText()).contains("the image's kserve package does not import"
        + " (ModuleNotFoundError: No module named 'fastapi_not_here_xyz'): serving through"
        + " fairing4j's kserve.Model server instead");
  }

  @Test
  void itListensWhereItIsToldAndOnLoopbackOutsideAContainer() throws Exception {
    InetAddress outside = Tools.nonLoopbackAddress();
    Server loopback = start("linear.py", LINEAR, Map.of());
    assertThat(Tools.connects(outside, loopback.port())).as("loopback only").isFalse();
    assertThat(loopback.logText()).contains("on 127.0.0.1:" + loopback.port());

    Server exposed = start("linear.py", LINEAR, Map.of("FAIRING4J_SERVER_HOST", "0.0.0.0"));
    assertThat(Tools.connects(outside, exposed.port())).as("every interface").isTrue();
  }
}
