"""Serves the FashionMNIST model mnist_ddp.py trained (seed 000): images in, classes out.

fairing4j's model server (Preprocessors.predictor) imports this file and calls MnistModel. The
network is mnist_ddp.py's own, imported from the file beside this one, so the state dict the
training saved loads as it was written. Each instance is one 28x28 image of pixel values 0-255
(nested rows, or 784 values); the answer is its class, 0-9.
"""
import logging
import os
import sys

import torch

from mnist_ddp import Net

logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                    format="%(levelname)s %(name)s %(message)s")
log = logging.getLogger("mnist_predictor")
CLASSES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker",
           "Bag", "Ankle boot"]


class MnistModel:
    def load(self):
        path = os.path.join(os.environ.get("MODEL_DIR", "/opt/mnist/models"), "mnist_cnn.pt")
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.net = Net().to(self.device)
        self.net.load_state_dict(torch.load(path, map_location=self.device))
        self.net.eval()
        log.info("loaded %s on %s", path, self.device)

    def predict(self, instances):
        pixels = torch.tensor(instances, dtype=torch.float32, device=self.device)
        if pixels.numel() % 784 != 0:
            raise ValueError("each instance must be a 28x28 image (784 pixel values), got %d"
                             " values in all" % pixels.numel())
        # The training's normalisation (mnist_ddp.load): scale to 0-1, then the MNIST mean/std.
        x = (pixels.reshape(-1, 1, 28, 28) / 255.0 - 0.1307) / 0.3081
        with torch.no_grad():
            return self.net(x).argmax(dim=1).cpu()
