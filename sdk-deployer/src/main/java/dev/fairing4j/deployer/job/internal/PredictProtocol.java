package dev.fairing4j.deployer.job.internal;

import dev.fairing4j.core.InvalidInputException;
import dev.fairing4j.core.PredictionException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * KServe's V1 predict exchange as every endpoint speaks it, wherever the server runs: the
 * request's shape ({@code {"instances": [...]}}), the answer's ({@code {"predictions": [...]}}),
 * the error a server or a proxy answers with, and the report of an endpoint that cannot become
 * ready, with its server's last words.
 */
public final class PredictProtocol {
  private static final int SHOWN = 300;

  private PredictProtocol() {}

  /**
   * Checks a request a user wrote.
   *
   * @throws InvalidInputException naming {@code requestJson} when it is not a JSON object
   */
  public static String requireObject(String requestJson) {
    Objects.requireNonNull(requestJson, "requestJson");
    if (JsonTree.parseObject(requestJson).isEmpty() && !requestJson.strip().equals("{}")) {
      throw InvalidInputException.of("requestJson", "is not a JSON object",
          "send {\"instances\": [...]}, or call predict(List) with the instances");
    }
    return requestJson;
  }

  /** The request for {@code instances}. */
  public static String request(List<?> instances) {
    return JsonTree.toJson(Map.of("instances", Objects.requireNonNull(instances, "instances")));
  }

  /**
   * The predictions of a V1 answer.
   *
   * @throws PredictionException when the answer has none: the server speaks another protocol
   */
  public static List<Object> predictions(String answer, String endpoint, String url) {
    Object predictions = JsonTree.parseObject(answer).get("predictions");
    if (!(predictions instanceof List<?> list)) {
      throw new PredictionException(endpoint, "the answer has no \"predictions\" list: "
          + abbreviate(answer), "the server at " + url + " does not speak KServe's V1"
          + " protocol; send the request with predict(String) and read the answer yourself",
          null);
    }
    return new ArrayList<>(list);
  }

  /**
   * The error text of a failed answer: the model server's {@code {"error": ...}}, an API
   * server's Status {@code message}, else the body itself, shortened.
   */
  public static String errorOf(String body) {
    Map<String, Object> json = JsonTree.parseObject(body);
    return JsonTree.text(json, "error").or(() -> JsonTree.text(json, "message"))
        .orElse(abbreviate(body));
  }

  /** Whether a failed answer is the model server's own error ({@code {"error": ...}}). */
  public static boolean fromModelServer(String body) {
    return JsonTree.parseObject(body).containsKey("error");
  }

  /** {@code problem}, then the last lines {@code pod} wrote, indented, when there are any. */
  public static String withLastLines(String problem, String pod, List<String> lines) {
    return lines.isEmpty() ? problem
        : problem + "\nlast lines of " + pod + ":\n  " + String.join("\n  ", lines);
  }

  private static String abbreviate(String text) {
    String flat = text.strip();
    return flat.length() <= SHOWN ? flat : flat.substring(0, SHOWN) + "...";
  }
}
