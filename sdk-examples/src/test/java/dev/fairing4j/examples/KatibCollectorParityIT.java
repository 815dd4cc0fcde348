package dev.fairing4j.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import dev.fairing4j.builder.Preprocessors;
import dev.fairing4j.core.Fairing;
import dev.fairing4j.core.LogLine;
import dev.fairing4j.core.Pipeline;
import dev.fairing4j.core.ProgressListener;
import dev.fairing4j.core.TrainingJob;
import dev.fairing4j.core.testing.Tools;
import dev.fairing4j.deployer.Clusters;
import dev.fairing4j.deployer.Deployers;
import dev.fairing4j.deployer.local.LocalCluster;
import dev.fairing4j.deployer.tuning.Experiment;
import dev.fairing4j.deployer.tuning.ExperimentResults;
import dev.fairing4j.deployer.tuning.ExperimentRun;
import dev.fairing4j.deployer.tuning.Objective;
import dev.fairing4j.deployer.tuning.Search;
import dev.fairing4j.deployer.tuning.Trial;
import dev.fairing4j.deployer.tuning.TrialStatus;
import dev.fairing4j.deployer.tuning.TuningBackend;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The objective a search reads on this machine is the one Katib would read: Katib's own PyTorch
 * MNIST trial script (examples/v1beta1/trial-images/pytorch-mnist/mnist.py: its network, its
 * train and test functions and its logging format, with FashionMNIST read from Debian's IDX
 * files instead of downloaded, and {@code hypertune}, which is on PyPI only, left out) tuned by
 * Katib's own example objective (minimize {@code loss}) on {@code Clusters.local()}. The
 * {@code metricsFormat} the Katib rendering of the same experiment carries is then applied to
 * each trial's log with Go's regular expressions (RE2/J) as Katib's text collector applies them
 * ({@code parseLogsInTextFormat} in Katib's file-metricscollector.go, ported below: lines that
 * contain the metric, every filter's every match, the first group trimmed as the name, the
 * second as the value), and Katib's strategy for a minimized metric (its minimum) gives the
 * value the local search recorded for every trial: the training lines' {@code loss=..} values
 * count as they do on Katib, beside the test line's {@code {metricName: loss, ...}}.
 */
@Timeout(600)
class KatibCollectorParityIT {
  private static final String KATIB_MNIST = """
      from __future__ import print_function

      import argparse
      import gzip
      import logging
      import os
      import struct

      import torch
      import torch.nn as nn
      import torch.nn.functional as F
      import torch.optim as optim
      from torch.utils.data import DataLoader, TensorDataset


      class Net(nn.Module):
          def __init__(self):
              super(Net, self).__init__()
              self.conv1 = nn.Conv2d(1, 20, 5, 1)
              self.conv2 = nn.Conv2d(20, 50, 5, 1)
              self.fc1 = nn.Linear(4 * 4 * 50, 500)
              self.fc2 = nn.Linear(500, 10)

          def forward(self, x):
              x = F.relu(self.conv1(x))
              x = F.max_pool2d(x, 2, 2)
              x = F.relu(self.conv2(x))
              x = F.max_pool2d(x, 2, 2)
              x = x.view(-1, 4 * 4 * 50)
              x = F.relu(self.fc1(x))
              x = self.fc2(x)
              return F.log_softmax(x, dim=1)


      def train(args, model, device, train_loader, optimizer, epoch):
          model.train()
          for batch_idx, (data, target) in enumerate(train_loader):
              data, target = data.to(device), target.to(device)
              optimizer.zero_grad()
              output = model(data)
              loss = F.nll_loss(output, target)
              loss.backward()
              optimizer.step()
              if batch_idx % args.log_interval == 0:
                  msg = "Train Epoch: {} [{}/{} ({:.0f}%)]\\tloss={:.4f}".format(
                      epoch,
                      batch_idx * len(data),
                      len(train_loader.dataset),
                      100.0 * batch_idx / len(train_loader),
                      loss.item(),
                  )
                  logging.info(msg)


      def test(args, model, device, test_loader, epoch):
          model.eval()
          test_loss = 0
          correct = 0
          with torch.no_grad():
              for data, target in test_loader:
                  data, target = data.to(device), target.to(device)
                  output = model(data)
                  test_loss += F.nll_loss(output, target, reduction="sum").item()
                  pred = output.max(1, keepdim=True)[1]
                  correct += pred.eq(target.view_as(pred)).sum().item()

          test_loss /= len(test_loader.dataset)
          test_accuracy = float(correct) / len(test_loader.dataset)

          logging.info(
              "{{metricName: accuracy, metricValue: {:.4f}}};"
              "{{metricName: loss, metricValue: {:.4f}}}\\n".format(test_accuracy, test_loss)
          )


      def read_idx(path, limit):
          with gzip.open(path, "rb") as f:
              data = f.read()
          magic, = struct.unpack(">I", data[:4])
          dims = magic & 0xFF
          shape = struct.unpack(">" + "I" * dims, data[4:4 + 4 * dims])
          tensor = torch.frombuffer(bytearray(data[4 + 4 * dims:]), dtype=torch.uint8)
          return tensor.reshape(shape)[:limit]


      def dataset(split, limit):
          prefix = "train" if split == "train" else "t10k"
          root = "/usr/share/datasets/fashion-mnist"
          images = read_idx(os.path.join(root, prefix + "-images-idx3-ubyte.gz"), limit)
          labels = read_idx(os.path.join(root, prefix + "-labels-idx1-ubyte.gz"), limit)
          return TensorDataset(images.float().div(255.0).unsqueeze(1), labels.long())


      def main():
          parser = argparse.ArgumentParser(description="PyTorch FashionMNIST Example")
          parser.add_argument("--batch-size", type=int, default=64)
          parser.add_argument("--test-batch-size", type=int, default=1000)
          parser.add_argument("--epochs", type=int, default=1)
          parser.add_argument("--lr", type=float, default=0.01)
          parser.add_argument("--momentum", type=float, default=0.5)
          parser.add_argument("--seed", type=int, default=1)
          parser.add_argument("--log-interval", type=int, default=2)
          parser.add_argument("--samples", type=int, default=640)
          args = parser.parse_args()

          # Use this format (%Y-%m-%dT%H:%M:%SZ) to record timestamp of the metrics.
          logging.basicConfig(
              format="%(asctime)s %(levelname)-8s %(message)s",
              datefmt="%Y-%m-%dT%H:%M:%SZ",
              level=logging.DEBUG,
          )
          torch.manual_seed(args.seed)
          device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
          train_loader = DataLoader(dataset("train", args.samples), batch_size=args.batch_size,
                                    shuffle=True)
          test_loader = DataLoader(dataset("test", 200), batch_size=args.test_batch_size)
          model = Net().to(device)
          optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
          for epoch in range(1, args.epochs + 1):
              train(args, model, device, train_loader, optimizer, epoch)
              test(args, model, device, test_loader, epoch)


      if __name__ == "__main__":
          main()
      """;

  @TempDir Path dir;
  @TempDir Path state;

  @BeforeAll
  static void realParts() {
    Tools.localTraining();
  }

  private Experiment experiment(LocalCluster cluster) throws Exception {
    Path script = Files.writeString(dir.resolve("mnist.py"), KATIB_MNIST);
    Pipeline pipeline = Fairing.pipeline().progress(ProgressListener.NONE)
        .preprocessor(Preprocessors.python(script))
        .deployer(Deployers.pyTorchJob("mnist").workers(0).args("--epochs=1").on(cluster));
    // Katib's pytorchjob-mnist example: minimize loss over lr and momentum.
    return Experiment.of("katib-mnist", pipeline)
        .parameter("lr", Search.uniform(0.01, 0.05))
        .parameter("momentum", Search.uniform(0.5, 0.9))
        .objective(Objective.minimize("loss")).maxTrials(3);
  }

  @Test
  void theLocalSearchReadsTheValuesKatibsCollectorReadsWithTheRenderedFilters() throws Exception {
    LocalCluster cluster = Clusters.local().stateDir(state);
    Experiment experiment = experiment(cluster);
    String katibYaml = experiment.backend(TuningBackend.KATIB).dryRun();
    List<String> metricsFormat = metricsFormat(katibYaml);
    assertThat(katibYaml).as("the script's forms are read: no warning").doesNotContain(
        "WARNING");

    ExperimentResults results;
    try (ExperimentRun run = experiment.backend(TuningBackend.CLIENT).run()) {
      results = run.waitForCompletion(Duration.ofMinutes(8));
    }
    assertThat(results.trials()).extracting(Trial::status).containsOnly(TrialStatus.SUCCEEDED);
    for (Trial trial : results.trials()) {
      TrainingJob job = trial.job().orElseThrow();
      List<String> log = job.logs().snapshot().stream()
          .filter(l -> l.replica().equals("master-0")).map(LogLine::text).toList();
      List<Double> katib = katibTextCollector(log, List.of("loss"), metricsFormat);
      assertThat(katib).as("training lines and the test line, as Katib reads them")
          .hasSizeGreaterThan(2);
      double minimum = katib.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
      System.out.printf("KatibCollectorParityIT: trial %d (%s): Katib reads %d loss values,"
          + " min %.4f; the local search recorded %.4f%n", trial.number(),
          trial.describeParameters(), katib.size(), minimum, trial.objective().orElseThrow());
      assertThat(trial.objective().orElseThrow()).isCloseTo(minimum, within(1e-12));
    }
    cluster.listAll().forEach(TrainingJob::delete);
  }

  @SuppressWarnings("unchecked")
  private static List<String> metricsFormat(String yaml) throws java.io.IOException {
    List<Map<String, Object>> objects = new com.fasterxml.jackson.databind.ObjectMapper(
        new com.fasterxml.jackson.dataformat.yaml.YAMLFactory()).readerFor(Map.class)
        .<Map<String, Object>>readValues(yaml).readAll();
    Map<String, Object> experiment = objects.stream()
        .filter(o -> o != null && "Experiment".equals(o.get("kind"))).findFirst().orElseThrow();
    Map<String, Object> spec = (Map<String, Object>) experiment.get("spec");
    Map<String, Object> collector = (Map<String, Object>) spec.get("metricsCollectorSpec");
    Map<String, Object> source = (Map<String, Object>) collector.get("source");
    return (List<String>) ((Map<String, Object>) source.get("filter")).get("metricsFormat");
  }

  /**
   * Katib's {@code parseLogsInTextFormat} (pkg/metricscollector/v1beta1/file-metricscollector),
   * in Java with Go's regular expressions: the values of {@code metrics[0]} it would report.
   */
  private static List<Double> katibTextCollector(List<String> logs, List<String> metrics,
      List<String> filters) {
    List<Pattern> metricRegList = new ArrayList<>();
    for (String filter : filters) {
      metricRegList.add(Pattern.compile(filter));
    }
    List<Double> values = new ArrayList<>();
    for (String logline : logs) {
      boolean isMetricLine = false;
      for (String m : metrics) {
        if (logline.contains(m)) {
          isMetricLine = true;
          break;
        }
      }
      if (!isMetricLine) {
        continue;
      }
      for (Pattern metricReg : metricRegList) {
        Matcher kevList = metricReg.matcher(logline);
        while (kevList.find()) {
          if (kevList.groupCount() + 1 < 3) {
            continue;
          }
          String name = kevList.group(1).trim();
          String value = kevList.group(2).trim();
          if (name.equals(metrics.get(0))) {
            values.add(Double.parseDouble(value));  // Katib's observation parses the string
          }
        }
      }
    }
    return values;
  }
}
