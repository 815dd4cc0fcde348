#!/usr/bin/env bash
# The README's main job: FashionMNIST data-parallel training as a PyTorchJob (1 Master + 1 Worker)
# on this machine, through the same front door a real cluster uses (Clusters.local()).
# On a fresh Debian 12 machine with JDK 17 and Maven (as root) it installs what is missing,
# builds the SDK and runs the example.
#   scripts/demo.sh [--epochs N] [--samples N] [--test-samples N] [--workers N] [--quiet]
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup-machine.sh python3-torch python3-torchvision dataset-fashion-mnist bubblewrap util-linux

classpath=$(bash scripts/sdk-classpath.sh demo)
exec java -cp "$classpath" dev.fairing4j.examples.FashionMnistDemo "$@"
