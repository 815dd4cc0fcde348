#!/usr/bin/env bash
# Installs the Debian packages fairing4j's tests and demo use, skipping what is already there.
# Usage: scripts/setup-machine.sh [package ...]   (default: everything the test suite needs)
# Needs root (or sudo) on Debian 12; prints the apt-get line to run otherwise.
# Writes only to stderr: the scripts that call it print their product on stdout.
set -euo pipefail
exec 1>&2

packages=("$@")
if [ ${#packages[@]} -eq 0 ]; then
  packages=(
    docker-registry      # the real registry the builder pushes to in tests
    skopeo               # independent check of pushed images
    git                  # git daemon for git:// preprocessor tests
    python3-torch        # real PyTorch training (local cluster, demo)
    python3-torchvision
    python3-xgboost      # real distributed XGBoost (XGBoostJob on the local cluster and the kit)
    python3-requests     # a TrainJob script posting its progress as the Kubeflow SDK does
    dataset-fashion-mnist  # /usr/share/datasets/fashion-mnist/*.gz
    podman runc          # optional container backend
    bubblewrap           # sandbox for local replicas
    buildah              # benchmark comparison and test base images
    util-linux           # setpriv --pdeathsig for child processes
    etcd-server          # etcd behind the real kube-apiserver of the API tests
    xz-utils             # unpacks the Kubernetes binaries (FAIRING4J_K8S holds them as .xz)
    jupyter-nbconvert python3-nbclient python3-ipykernel jupyter-client
                         # notebooks run headless (the rapaio Java kernel; full-notebook jobs)
    fonts-dejavu-core    # a font for the metrics plots a headless JVM draws
  )
fi

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

echo "setup: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "setup: not root and no sudo; run as root: apt-get install --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
