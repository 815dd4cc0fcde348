package dev.fairing4j.deployer.local.internal.trainerstatus;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.fairing4j.deployer.job.internal.Mappers;
import dev.fairing4j.deployer.trainer.internal.TrainJobStatus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The reports a job's status server accepted, one JSON line each in
 * {@code <job>/trainer-reports.jsonl}, oldest first: where {@code metrics()} of any JVM reads
 * them, after the job and its server ended too. A Kubernetes TrainJob keeps only the latest in
 * {@code status.trainerStatus}; here the history is kept for the plots, bounded: at
 * {@value #MAX} reports every other one of the older ones goes, so a long job keeps its whole
 * span at a coarser grain (at the Kubeflow SDK's pace of one report per 5 s, {@value #MAX} is
 * about 14 hours).
 */
public final class StatusReports {
  /** The most reports a job keeps. */
  static final int MAX = 10_000;
  static final String FILE = "trainer-reports.jsonl";

  private final Path file;
  private int count;

  /** The reports of the job in {@code jobDir}, for the one process that writes them. */
  StatusReports(Path jobDir) {
    this.file = jobDir.resolve(FILE);
    this.count = read(file).size();
  }

  /** Appends {@code trainerStatus}; thins the older reports out when there are too many. */
  synchronized void append(ObjectNode trainerStatus) throws IOException {
    if (count >= MAX) {
      thin();
    }
    Files.write(file, (trainerStatus.toString() + "\n").getBytes(StandardCharsets.UTF_8),
        StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
    count++;
  }

  /**
   * What the job's trainer reported, oldest first, each read exactly as a Kubernetes TrainJob's
   * {@code status.trainerStatus} is ({@link TrainJobStatus#trainerReport}); empty where it
   * reported nothing.
   */
  public static List<TrainJobStatus.TrainerReport> of(Path jobDir) {
    List<TrainJobStatus.TrainerReport> reports = new ArrayList<>();
    for (JsonNode status : read(jobDir.resolve(FILE))) {
      Map<String, Object> asTrainJob = Map.<String, Object>of("status",
          Map.<String, Object>of("trainerStatus", Mappers.JSON.convertValue(status, Map.class)));
      TrainJobStatus.trainerReport(asTrainJob).ifPresent(reports::add);
    }
    return reports;
  }

  private void thin() throws IOException {
    List<JsonNode> all = read(file);
    StringBuilder kept = new StringBuilder();
    int left = 0;
    for (int i = 0; i < all.size(); i++) {
      // every other one, and always the newest: it is the current state
      if (i % 2 == 1 || i == all.size() - 1) {
        kept.append(all.get(i).toString()).append('\n');
        left++;
      }
    }
    Path tmp = Files.createTempFile(file.getParent(), FILE + ".", ".tmp");
    Files.writeString(tmp, kept);
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    count = left;
  }

  private static List<JsonNode> read(Path file) {
    List<String> lines;
    try {
      lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      return List.of();
    } catch (IOException e) {
      return List.of(); // the job was deleted while read
    }
    List<JsonNode> reports = new ArrayList<>();
    for (String line : lines) {
      parse(line).ifPresent(reports::add);
    }
    return reports;
  }

  /** A line still being written is no report yet. */
  private static Optional<JsonNode> parse(String line) {
    try {
      JsonNode node = Mappers.JSON.readTree(line);
      return node != null && node.isObject() ? Optional.of(node) : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
