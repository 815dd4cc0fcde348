#!/usr/bin/env bash
# Installs what the tests need on a fresh Debian 12 machine (JDK 17 and Maven present, root),
# then builds everything and runs every test of the default suite: unit tests (*Test) and the
# tests that start real processes (*IT: registry, git, PyTorch training, sandboxes, a real
# kube-apiserver + etcd + kube-controller-manager, and every notebook under sdk-examples/notebooks
# run headless by jupyter nbconvert in the rapaio Java kernel, whose jar the build fetches with
# Maven and whose kernelspec NotebookIT installs in a temporary Jupyter path with
# scripts/notebook-kernel.sh).
#
# Settings (environment):
#   FAIRING4J_K8S                 directory with kube-apiserver and kube-controller-manager
#                                 (unpacked or .xz); default ../shared/k8s when it exists
#   FAIRING4J_CLUSTER_KUBECONFIG  kubeconfig of a running ../shared/k8s/cluster kit: also runs
#                                 the `cluster` suite against it (.ci/run sets it)
#   FAIRING4J_SUITE=trainer-v2    instead, runs only the `trainer-v2` cluster tests (sdk-examples),
#                                 against a kit started without the v1 operator and with the
#                                 Trainer v2 controllers (.ci/run's second phase):
#                                 KUBECONFIG=$(OPERATOR=0 ../shared/k8s/cluster/up.sh | tail -1);
#                                 ../shared/k8s/trainer-v2/up.sh
# Other tagged suites (gpu, docker, tensorflow, papermill) need what these machines lack: docs/testing.md.
# Extra arguments go to Maven.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS

bash scripts/setup-machine.sh

if [[ -z "${FAIRING4J_K8S:-}" && -d ../shared/k8s ]]; then
  FAIRING4J_K8S=$(cd ../shared/k8s && pwd)
fi
if [[ -n "${FAIRING4J_K8S:-}" ]]; then
  export FAIRING4J_K8S
  echo "test: Kubernetes binaries for the real-API tests from FAIRING4J_K8S=$FAIRING4J_K8S"
else
  echo "test: FAIRING4J_K8S is unset and ../shared/k8s does not exist: the real-API tests will" \
    "fail and say how to get the binaries (docs/testing.md)"
fi

if [[ "${FAIRING4J_SUITE:-}" == trainer-v2 ]]; then
  if [[ -z "${FAIRING4J_CLUSTER_KUBECONFIG:-}" ]]; then
    echo "test: FAIRING4J_SUITE=trainer-v2 needs FAIRING4J_CLUSTER_KUBECONFIG of a kit with the" \
      "Trainer v2 controllers: KUBECONFIG=\$(OPERATOR=0 ../shared/k8s/cluster/up.sh | tail -1);" \
      "../shared/k8s/trainer-v2/up.sh" >&2
    exit 2
  fi
  export FAIRING4J_CLUSTER_KUBECONFIG
  echo "test: trainer-v2 suite only, against $FAIRING4J_CLUSTER_KUBECONFIG"
  status=0
  # Failsafe's verify reads each module's summary, and a run with no tests leaves an earlier
  # run's summary in place: a failure from the default suite would fail this run too.
  rm -rf sdk-*/target/failsafe-reports
  # -am builds the modules it needs in the reactor; they have no trainer-v2 tests of their own.
  mvn -B -ntp verify -pl sdk-examples -am -Popt-in -DincludedTestTags=trainer-v2 "$@" \
    || status=$?
  echo "test: mvn verify (trainer-v2) exit $status after $((SECONDS - started)) s"
  exit $status
fi

# trainer-v2 cluster tests need a kit without the v1 operator: they have a run of their own.
excluded=gpu,docker,tensorflow,papermill,trainer-v2
if [[ -n "${FAIRING4J_CLUSTER_KUBECONFIG:-}" ]]; then
  export FAIRING4J_CLUSTER_KUBECONFIG
  echo "test: cluster suite on, against $FAIRING4J_CLUSTER_KUBECONFIG"
  not_run="trainer-v2 (FAIRING4J_SUITE=trainer-v2, see above), gpu, docker, tensorflow, papermill"
else
  excluded=$excluded,cluster
  not_run="trainer-v2, cluster (needs the kit: .ci/run, or FAIRING4J_CLUSTER_KUBECONFIG=\$(../shared/k8s/cluster/up.sh | tail -1) scripts/test.sh), gpu, docker, tensorflow, papermill"
fi

status=0
# Quiet download progress; keep test output.
mvn -B -ntp verify -DexcludedTestTags="$excluded" "$@" || status=$?
echo "test: not run: $not_run (docs/testing.md: mvn verify -Popt-in -DincludedTestTags=TAG)"
echo "test: mvn verify exit $status after $((SECONDS - started)) s"
exit $status
