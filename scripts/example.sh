#!/usr/bin/env bash
# Runs one of the seed scenarios (sdk-examples, dev.fairing4j.examples.Examples) by name:
#   scripts/example.sh <name> [--dry-run] [--kubeconfig FILE] [--registry REPO] [--namespace NS]
#                      [--base IMAGE] [--epochs N] [--samples N] [--gpus N] [--git-url URL]
#                      [--data-claim NAME] [--quiet]
# names: traindb-mnist, arena-dist, gloo-demo, tf-multiworker, pytorch-simple, pytorch-trainjob,
# traindb-serve
# (--help lists them).
# Default: this machine (Clusters.local()); --dry-run prints the manifests and builds nothing;
# --kubeconfig FILE --registry REPO builds with Jib, pushes and submits to that cluster.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)

# Usage needs no build. ScriptsIT keeps this text equal to what Examples --help prints.
usage() {
  cat <<'USAGE'
usage: scripts/example.sh <name> [--dry-run] [--kubeconfig FILE] [--registry REPO]
                          [--namespace NS] [--base IMAGE] [--epochs N] [--samples N]
                          [--gpus N] [--git-url URL] [--data-claim NAME] [--quiet]
  default: run on this machine (Clusters.local()); --dry-run prints the manifests only;
  --kubeconfig FILE --registry REPO: build with Jib, push and submit to that cluster;
  --data-claim NAME: FashionMNIST from that claim (pods on a cluster cannot download it).

examples:
  traindb-mnist    PyTorchJob traindb-training-mnist saving mnist_cnn.pt to claim traindb-models-claim; monitor, logs, delete
  arena-dist       PyTorchJob pytorch-dist, 1 Master + 2 Workers with 1 GPU each, code from git, data on claim training-data
  gloo-demo        PyTorchJob pytorch-dist-mnist-gloo, 1 Master + 3 Workers on CPU, gloo backend
  tf-multiworker   TFJob tf-multiworker-mnist, Chief 1 + Worker 2 with GPUs, Keras MultiWorkerMirroredStrategy
  pytorch-simple   PyTorchJob pytorch-simple in kubeflow, Master 1 + Worker 1, FashionMNIST DDP
  pytorch-trainjob TrainJob pytorch-simple in kubeflow on torch-distributed, 2 nodes, FashionMNIST DDP (Trainer v2)
  traindb-serve    traindb-mnist, then mnist_cnn.pt served from traindb-models-claim by endpoint traindb-predictor and the test images classified through it
USAGE
}
case "${1:-}" in
  "") usage >&2; exit 2 ;;
  -h|--help) usage; exit 0 ;;
esac

dry_run=false
kubeconfig=false
for arg in "$@"; do
  case "$arg" in
    --dry-run) dry_run=true ;;
    --kubeconfig|--kubeconfig=*) kubeconfig=true ;;
  esac
done
# What a local run needs; a dry run or a real cluster needs none of it.
if [[ $dry_run == false && $kubeconfig == false ]]; then
  bash "$ROOT/scripts/setup-machine.sh" python3-torch python3-torchvision dataset-fashion-mnist \
    bubblewrap util-linux
fi

# Relative paths the user gives (--kubeconfig FILE) stay relative to the caller's directory.
classpath=$(bash "$ROOT/scripts/sdk-classpath.sh" example)
exec java -cp "$classpath" dev.fairing4j.examples.Examples "$@"
