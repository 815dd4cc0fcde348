#!/usr/bin/env bash
# Installs what the tests need on a fresh Debian 12 machine (JDK 17 and Maven present, root),
# then builds everything and runs every test of the default suite: unit tests (*Test) and the
# tests that start real processes (*IT: registry, git, PyTorch training, sandboxes).
# Tagged suites that need parts these machines lack (gpu, docker, tensorflow, cluster, papermill)
# are opt-in: see README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup-machine.sh

# Quiet download progress; keep test output.
exec mvn -B -ntp verify "$@"
