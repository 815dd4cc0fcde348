package dev.fairing4j.examples.bench;

/**
 * The training script the benchmark edits: a small but realistic PyTorch script (a few KB, like
 * the code a user iterates on), where one line, the learning rate, is what a "one-line change"
 * changes. Each app gets its own identity line so no two repositories share the code layer.
 */
final class TrainingScript {
  private TrainingScript() {}

  /** The script of app {@code app} at edit number {@code edit} (0 = as first written). */
  static String text(String app, int edit) {
    return """
        # fairing4j build benchmark: app %s
        import argparse
        import os
        import time

        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        LEARNING_RATE = %s


        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv1 = nn.Conv2d(1, 32, 3, 1)
                self.conv2 = nn.Conv2d(32, 64, 3, 1)
                self.fc1 = nn.Linear(9216, 128)
                self.fc2 = nn.Linear(128, 10)

            def forward(self, x):
                x = F.relu(self.conv1(x))
                x = F.max_pool2d(F.relu(self.conv2(x)), 2)
                x = torch.flatten(x, 1)
                return F.log_softmax(self.fc2(F.relu(self.fc1(x))), dim=1)


        def main():
            parser = argparse.ArgumentParser()
            parser.add_argument("--epochs", type=int, default=1)
            parser.add_argument("--batch-size", type=int, default=64)
            args = parser.parse_args()
            torch.manual_seed(1)
            model = Net()
            optimizer = torch.optim.SGD(model.parameters(), lr=LEARNING_RATE, momentum=0.9)
            for epoch in range(args.epochs):
                started = time.time()
                data = torch.randn(args.batch_size, 1, 28, 28)
                target = torch.randint(0, 10, (args.batch_size,))
                optimizer.zero_grad()
                loss = F.nll_loss(model(data), target)
                loss.backward()
                optimizer.step()
                print(f"epoch={epoch} loss={loss.item():.4f} took={time.time() - started:.2f}s "
                      f"rank={os.environ.get('RANK', '0')}", flush=True)


        if __name__ == "__main__":
            main()
        """.formatted(app, edit == 0 ? "0.01" : "0.01 * " + (edit + 1));
  }
}
