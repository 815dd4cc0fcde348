package dev.fairing4j.deployer.local.internal.trainerstatus;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.fairing4j.deployer.job.internal.Mappers;
import java.io.IOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Optional;

/**
 * One body the status server was sent, {@code {"trainerStatus": {...}}}, checked as the
 * TrainJob's CRD checks {@code status.trainerStatus} on the real server: progress an integer
 * from 0 to 100, the remaining seconds an integer of at least 0, at most 256 metrics whose name
 * and value are strings of 1 to 64 characters, and {@code lastUpdatedTime} required, an RFC 3339
 * time. The API server keeps that time in whole seconds, and so does this.
 *
 * @param trainerStatus the checked report, with its time in whole seconds; empty for a body
 *     without one (which the plugin's server answers, and changes nothing)
 */
record StatusUpdate(Optional<ObjectNode> trainerStatus) {
  static final int MAX_METRICS = 256;
  static final int MAX_TEXT = 64;

  /** An update the server refuses, with the message the real server gives. */
  static final class Invalid extends Exception {
    private static final long serialVersionUID = 1L;

    Invalid(String message) {
      super(message, null, false, false);
    }
  }

  /** The update in {@code body}. */
  static StatusUpdate parse(byte[] body) throws Invalid {
    JsonNode root;
    try {
      root = Mappers.JSON.readTree(body);
    } catch (IOException e) {
      throw new Invalid("Invalid payload");
    }
    if (root == null || !root.isObject()) {
      throw new Invalid("Invalid payload");
    }
    JsonNode status = root.get("trainerStatus");
    if (status == null || status.isNull()) {
      return new StatusUpdate(Optional.empty());
    }
    if (!status.isObject()) {
      throw new Invalid("Invalid payload");
    }
    ObjectNode checked = Mappers.JSON.createObjectNode();
    Optional<Integer> progress = integer(status, "progressPercentage");
    if (progress.isPresent()) {
      if (progress.get() < 0 || progress.get() > 100) {
        throw new Invalid("TrainJob.trainer.kubeflow.org is invalid: "
            + "status.trainerStatus.progressPercentage: Invalid value: " + progress.get()
            + ": status.trainerStatus.progressPercentage in body should be "
            + (progress.get() < 0 ? "greater than or equal to 0" : "less than or equal to 100"));
      }
      checked.put("progressPercentage", progress.get());
    }
    Optional<Integer> remaining = integer(status, "estimatedRemainingSeconds");
    if (remaining.isPresent()) {
      if (remaining.get() < 0) {
        throw new Invalid("TrainJob.trainer.kubeflow.org is invalid: "
            + "status.trainerStatus.estimatedRemainingSeconds: Invalid value: "
            + remaining.get() + ": status.trainerStatus.estimatedRemainingSeconds in body should"
            + " be greater than or equal to 0");
      }
      checked.put("estimatedRemainingSeconds", remaining.get());
    }
    JsonNode metrics = status.get("metrics");
    if (metrics != null && !metrics.isNull()) {
      checked.set("metrics", metrics(metrics));
    }
    JsonNode time = status.get("lastUpdatedTime");
    if (time == null || time.isNull()) {
      throw new Invalid("TrainJob.trainer.kubeflow.org is invalid: status.trainerStatus:"
          + " Invalid value: \"object\": lastUpdatedTime is required when trainerStatus is"
          + " present");
    }
    checked.put("lastUpdatedTime", time(time).toString());
    return new StatusUpdate(Optional.of(checked));
  }

  /** The body the plugin's server answers a good update with: the update as it was read. */
  String echo() {
    ObjectNode root = Mappers.JSON.createObjectNode();
    trainerStatus.ifPresent(s -> root.set("trainerStatus", s));
    return root.toString();
  }

  private static ArrayNode metrics(JsonNode metrics) throws Invalid {
    if (!metrics.isArray()) {
      throw new Invalid("Invalid payload");
    }
    if (metrics.size() > MAX_METRICS) {
      throw new Invalid("TrainJob.trainer.kubeflow.org is invalid: status.trainerStatus.metrics:"
          + " Too many: " + metrics.size() + ": must have at most " + MAX_METRICS + " items");
    }
    ArrayNode checked = Mappers.JSON.createArrayNode();
    for (int i = 0; i < metrics.size(); i++) {
      JsonNode metric = metrics.get(i);
      if (!metric.isObject()) {
        throw new Invalid("Invalid payload");
      }
      ObjectNode one = checked.addObject();
      for (String field : new String[] {"name", "value"}) {
        JsonNode value = metric.get(field);
        String path = "status.trainerStatus.metrics[" + i + "]." + field;
        if (value == null || value.isNull()) {
          throw new Invalid("TrainJob.trainer.kubeflow.org is invalid: " + path
              + ": Required value");
        }
        if (!value.isTextual()) {
          throw new Invalid("Invalid payload"); // Go's decoder refuses a number for a string
        }
        int length = value.textValue().codePointCount(0, value.textValue().length());
        if (length < 1 || length > MAX_TEXT) {
          throw new Invalid("TrainJob.trainer.kubeflow.org is invalid: " + path
              + ": Invalid value: \"" + abbreviated(value.textValue()) + "\": " + path
              + " in body should be " + (length < 1 ? "at least 1 chars long"
              : "at most " + MAX_TEXT + " bytes long"));
        }
        one.put(field, value.textValue());
      }
    }
    return checked;
  }

  private static Optional<Integer> integer(JsonNode status, String field) throws Invalid {
    JsonNode value = status.get(field);
    if (value == null || value.isNull()) {
      return Optional.empty();
    }
    // Go decodes into an int32: a fraction, a string or a number out of range is no payload.
    if (!value.isIntegralNumber() || !value.canConvertToInt()) {
      throw new Invalid("Invalid payload");
    }
    return Optional.of(value.intValue());
  }

  private static Instant time(JsonNode value) throws Invalid {
    if (!value.isTextual()) {
      throw new Invalid("Invalid payload");
    }
    try {
      return OffsetDateTime.parse(value.textValue()).toInstant().truncatedTo(ChronoUnit.SECONDS);
    } catch (DateTimeParseException e) {
      throw new Invalid("Invalid payload");
    }
  }

  private static String abbreviated(String text) {
    return text.length() <= 80 ? text : text.substring(0, 80) + "...";
  }
}
