#!/usr/bin/env bash
# Runs one of the seed scenarios (sdk-examples, dev.fairing4j.examples.Examples) by name:
#   scripts/example.sh <name> [--dry-run] [--kubeconfig FILE] [--registry REPO] [--namespace NS]
#                      [--base IMAGE] [--epochs N] [--samples N] [--gpus N] [--git-url URL]
#                      [--data-claim NAME] [--quiet]
# names: traindb-mnist, arena-dist, gloo-demo, tf-multiworker, pytorch-simple (--help lists them).
# Default: this machine (Clusters.local()); --dry-run prints the manifests and builds nothing;
# --kubeconfig FILE --registry REPO builds with Jib, pushes and submits to that cluster.
set -euo pipefail
cd "$(dirname "$0")/.."

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
  bash scripts/setup-machine.sh python3-torch python3-torchvision dataset-fashion-mnist bubblewrap util-linux
fi

echo "example: building the SDK (mvn install, tests skipped; scripts/test.sh runs them)" >&2
mvn -B -q -ntp -DskipTests install
mvn -B -q -ntp -pl sdk-examples dependency:build-classpath -Dmdep.outputFile=target/classpath.txt \
  -Dmdep.includeScope=runtime >/dev/null

exec java -cp "sdk-examples/target/classes:$(cat sdk-examples/target/classpath.txt)" \
  dev.fairing4j.examples.Examples "$@"
