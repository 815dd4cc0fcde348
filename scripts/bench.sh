#!/usr/bin/env bash
# fairing4j benchmarks. Each mode prints its figures as `bench.<name>=<value>` lines; targets are
# printed beside the figures with PASS or MISS, and a miss never fails the run (benchmarks
# measure, they do not assert). A non-zero exit means the benchmark itself could not run.
#
#   scripts/bench.sh local [ROUNDS] [SAMPLES]
#       One 2-rank DDP epoch on a FashionMNIST subset (default 6000 samples, 5 rounds) through
#       Clusters.local() and through the same two processes started by a plain shell script,
#       interleaved, medians and their ratio (target <= 1.05), each run split into start,
#       script and end by marks the script prints; a one-line edit to the first
#       training log line on Clusters.local() with its breakdown (target <= 3 s); a container
#       start with requirements installed by pip at start against built into the image, from
#       the local wheelhouse /usr/share/python-wheels. See LocalBenchmark's javadoc.
#
#   scripts/bench.sh tune [TRIALS] [SAMPLES]
#       Seed 004's search (learning rate, momentum; default 6 trials on 1500 samples) on
#       Clusters.local(): the proposed trials run by hand one after another, then as an
#       experiment one at a time and two at a time; trials per hour of each and the experiment's
#       overhead per trial over the hand-run (target <= 1000 ms). See TuningBenchmark's javadoc.
#
#   scripts/bench.sh serve [SECONDS]
#       fairing4j's model server as the image runs it (a torch predictor, Debian's python3) under
#       1, 10, 50 and 200 concurrent keep-alive clients for SECONDS each (default 5): requests/s,
#       p50 and p99, errors and resets; a burst of 200 new connections at once; the same
#       predictor called in-process (the limit) and the server's overhead per request over it;
#       the server's threads and memory (targets: 0 resets, <= 8 threads). See ServeBenchmark.
#       FAIRING4J_BENCH_SERVER=FILE runs another fairing4j_model_server.py (an older commit's:
#       git show REV:sdk-builder/src/main/resources/.../fairing4j_model_server.py) side by side.
#
#   scripts/bench.sh load [JOBS] [REPLICAS] [LINES]
#       200 jobs followed concurrently from one TrainingClient against an in-process list+watch
#       fake (watch requests, API requests per job, heap), and the log fan-in of 8 replicas x
#       50,000 lines (no loss, no duplication, order kept; lines per second, target >= 100k/s).
#
#   scripts/bench.sh api [WAITS]
#       Requests a submit + waitForCompletion of a PyTorchJob that succeeds sends a real
#       kube-apiserver (FAIRING4J_K8S, default ../shared/k8s), counted from its audit log with a
#       thread playing the operator (target <= 4), and the watches of 200 concurrent waits
#       (target 1). See ApiBenchmark's javadoc.
#
#   scripts/bench.sh watch [JOBS] [IDLE_SECONDS]
#       The SDK's list+watch against client-java's SharedInformerFactory on a real kube-apiserver:
#       requests, open watches and threads while following 20 jobs and in 20 idle seconds after,
#       and what each does for a user whose Role lacks the watch verb. See WatchChoiceBenchmark.
#
#   scripts/bench.sh json [ITEMS]
#       The SDK's Map trees (JsonTree) against Jackson's JsonNode: parsing a PyTorchJob list of 20
#       items as the API server returns it and reading the status fields, nanoseconds and bytes
#       allocated per operation, and the Map-to-JsonNode conversion a switch would add per
#       manifest. See JsonTreeBenchmark.
#
#   scripts/bench.sh soak [LOCAL] [API]
#       One JVM through 2,000 local job lifecycles (submit, follow the logs, wait, metrics,
#       delete) and 500 against a real kube-apiserver with a thread playing the operator: heap
#       after GC, live threads, open file descriptors, child processes and cache and state bytes
#       at the start, after warm-up, halfway and at the end (targets: flat within 10% after
#       warm-up, no job process left, state back to its start). See SoakBenchmark's javadoc.
#
#   scripts/bench.sh build [--rounds=N] [--fresh-rounds=N] [--buildah-rounds=N]
#       The edit loop of a training script on a large base in a local registry: first build of a
#       new repository (with an empty cache: base bytes downloaded/uploaded from the registry's
#       access log), one-line change, unchanged rebuild; Jib in a warm JVM, in a fresh JVM and in
#       a fresh JVM with a CDS archive, and buildah (chroot; overlay driver where the kernel
#       allows it, and vfs) pushing to the same registry; for the fresh JVM's one-line edit also
#       the classes it loaded and the time its static initializers ran (HotSpot's counters,
#       saved at exit). See BuildBenchmark's javadoc.
#
#   scripts/bench.sh kit [ROUNDS]
#       The warm one-line edit loop on the cluster kit (../shared/k8s/cluster; not in the default
#       suite): the README's training script edited, built with Jib onto the torch base, pushed
#       to the kit's registry, submitted and followed to its first training line, for a
#       PyTorchJob of 1 Master + 3 Workers and a batch Job (a kit with the v1 operator) and a
#       2-node TrainJob (a kit with Trainer v2), the kinds the running kit serves. The time is
#       split by phase (build and push, create, pods created, scheduled, init containers, image
#       pulled, container started, Python start, imports, first line) as watches of the pods and
#       events see each point; medians of ROUNDS (default 5) and their spread (target for the
#       PyTorchJob <= 2.5 s). The kit's kubeconfig from FAIRING4J_CLUSTER_KUBECONFIG, else the
#       kit's default run directory. See KitBenchmark's javadoc.
#
# Environment:
#   FAIRING4J_BENCH_DIR   work dir, kept between runs so the base is built once
#                         (default ~/.cache/fairing4j/bench)
#   FAIRING4J_BENCH_BASE  torch (default: Debian minbase + python3-torch, ~1 GB) or python3
#   DEBIAN_MIRROR         mirror for debootstrap (default http://deb.debian.org/debian)
#   BENCH_JAVA_OPTS       extra JVM options for the benchmark JVM (e.g. to log Jib's step times)
#
# Needs root (debootstrap, buildah with overlay/vfs storage and chroot isolation), JDK 17 and Maven with
# the project's dependencies in ~/.m2, and the Debian packages debootstrap, buildah, skopeo,
# docker-registry. It installs nothing: a missing tool stops it with the apt-get line to run.
set -euo pipefail
cd "$(dirname "$0")/.."

BENCH_DIR=${FAIRING4J_BENCH_DIR:-$HOME/.cache/fairing4j/bench}
BASE_VARIANT=${FAIRING4J_BENCH_BASE:-torch}
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# Whole measured run (after the base exists) stays under 10 minutes.
RUN_LIMIT_S=600

usage() {
  echo "usage: scripts/bench.sh build [--rounds=N] [--fresh-rounds=N] [--buildah-rounds=N]" >&2
  echo "       scripts/bench.sh local [ROUNDS] [SAMPLES]" >&2
  echo "       scripts/bench.sh serve [SECONDS]" >&2
  echo "       scripts/bench.sh load [JOBS] [REPLICAS] [LINES]" >&2
  echo "       scripts/bench.sh api [WAITS]" >&2
  echo "       scripts/bench.sh watch [JOBS] [IDLE_SECONDS]" >&2
  echo "       scripts/bench.sh json [ITEMS]" >&2
  echo "       scripts/bench.sh soak [LOCAL_LIFECYCLES] [API_LIFECYCLES]" >&2
  echo "       scripts/bench.sh kit [ROUNDS]" >&2
}

log() { echo "bench: $*" >&2; }

# Stops with the apt-get line for every missing tool ("command:package" pairs).
require_tools() {
  local missing=() pair
  for pair in "$@"; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "missing ${missing[*]}; install with: apt-get install --no-install-recommends ${missing[*]}"
    exit 1
  fi
}

# The runtime class path of sdk-examples (no test jars), building the jars first when a source or
# pom is newer than the last build, so a rerun does not pay for Maven.
# The test class path of sdk-examples (the real API server fixture lives in sdk-core's test-jar).
bench_test_classpath() {
  local cp_file=sdk-examples/target/bench-test.classpath stamp=sdk-examples/target/bench-test.stamp
  if [ ! -f "$stamp" ] || [ ! -f "$cp_file" ] || [ -n "$(find pom.xml sdk-*/pom.xml \
      sdk-*/src -newer "$stamp" -print -quit)" ]; then
    log "building the jars and test classes (mvn package)"
    mvn -B -o -q -pl sdk-examples -am package dependency:build-classpath -DskipTests \
      -Dmdep.outputFile=target/bench-test.classpath -DincludeScope=test >&2
    touch "$stamp"
  fi
  echo "sdk-examples/target/test-classes:sdk-examples/target/classes:$(cat "$cp_file")"
}

bench_classpath() {
  local cp_file=sdk-examples/target/bench.classpath stamp=sdk-examples/target/bench.stamp
  if [ ! -f "$stamp" ] || [ ! -f "$cp_file" ] || [ -n "$(find pom.xml sdk-*/pom.xml \
      sdk-*/src/main -newer "$stamp" -print -quit)" ]; then
    log "building the jars (mvn package)"
    # outputFile is relative to each module of the reactor; only sdk-examples' is used.
    mvn -B -o -q -pl sdk-examples -am package dependency:build-classpath -DskipTests \
      -Dmdep.outputFile=target/bench.classpath -DincludeScope=runtime >&2
    touch "$stamp"
  fi
  echo "sdk-examples/target/classes:$(cat "$cp_file")"
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# The port of the last run when it is free: buildah remembers where it saw each blob by
# registry address, and mounts the base into a new repository only from an address it knows.
free_port() {
  local port last_file=$BENCH_DIR/registry/port
  if [ -f "$last_file" ] && port_free "$(cat "$last_file")"; then
    cat "$last_file"
    return
  fi
  for port in $(shuf -i 20000-60000 -n 50); do
    if port_free "$port"; then
      echo "$port" > "$last_file"
      echo "$port"
      return
    fi
  done
  log "no free port found"
  exit 1
}

REGISTRY_PID=""
cleanup() {
  if [ -n "$REGISTRY_PID" ] && kill -0 "$REGISTRY_PID" 2>/dev/null; then
    kill "$REGISTRY_PID" 2>/dev/null || true
    wait "$REGISTRY_PID" 2>/dev/null || true
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Starts docker-registry on a free loopback port; its storage persists in the work dir (so the
# base is pushed once), its log (with the access log the benchmark counts uploads from) is new.
start_registry() {
  local dir=$BENCH_DIR/registry
  mkdir -p "$dir/storage"
  REGISTRY_PORT=$(free_port)
  REGISTRY=127.0.0.1:$REGISTRY_PORT
  REGISTRY_LOG=$dir/registry.log
  cat > "$dir/config.yml" <<EOF
version: 0.1
log:
  level: warn
  formatter: text
  accesslog:
    disabled: false
storage:
  filesystem:
    rootdirectory: '$dir/storage'
  delete:
    enabled: true
  maintenance:
    uploadpurging:
      enabled: false
http:
  addr: $REGISTRY
  secret: fairing4j-bench-$RANDOM$RANDOM
EOF
  : > "$REGISTRY_LOG"
  # pdeathsig: the registry dies with this script even when the script is SIGKILLed
  setpriv --pdeathsig KILL docker-registry serve "$dir/config.yml" >> "$REGISTRY_LOG" 2>&1 &
  REGISTRY_PID=$!
  local i
  for i in $(seq 1 150); do
    if curl -s -o /dev/null "http://$REGISTRY/v2/"; then
      log "registry on $REGISTRY (pid $REGISTRY_PID, storage $dir/storage)"
      return
    fi
    kill -0 "$REGISTRY_PID" 2>/dev/null || break
    sleep 0.2
  done
  log "the registry did not start; its output:"
  cat "$REGISTRY_LOG" >&2
  exit 1
}

buildah_() {
  buildah --root "$BENCH_DIR/buildah/storage" --runroot "$BENCH_DIR/buildah/run" \
    --storage-driver vfs "$@"
}

# The large base, made once: a debootstrap rootfs (Jib drops symlinks, so it cannot make this
# base) committed by buildah as one layer and pushed to the local registry.
ensure_base() {
  local packages
  case "$BASE_VARIANT" in
    torch) packages=python3,python3-torch ;;
    python3) packages=python3 ;;
    *) log "FAIRING4J_BENCH_BASE must be torch or python3, not '$BASE_VARIANT'"; exit 2 ;;
  esac
  BASE_REF=$REGISTRY/bench/base:$BASE_VARIANT
  BASE_CREATED_MS=0
  if skopeo inspect --tls-verify=false --raw "docker://$BASE_REF" >/dev/null 2>&1; then
    return
  fi
  local started=$(date +%s%N)
  local rootfs=$BENCH_DIR/rootfs-$BASE_VARIANT
  if [ ! -f "$rootfs.complete" ]; then
    log "debootstrap --variant=minbase --include=$packages bookworm (once; minutes)"
    rm -rf "$rootfs.tmp" "$rootfs"
    debootstrap --variant=minbase --include="$packages" bookworm "$rootfs.tmp" \
      "$DEBIAN_MIRROR" > "$BENCH_DIR/debootstrap-$BASE_VARIANT.log" 2>&1 || {
        log "debootstrap failed; see $BENCH_DIR/debootstrap-$BASE_VARIANT.log"; exit 1; }
    rm -rf "$rootfs.tmp"/var/cache/apt/archives/*.deb "$rootfs.tmp"/var/lib/apt/lists/*
    mv "$rootfs.tmp" "$rootfs"
    touch "$rootfs.complete"
  fi
  local local_name=localhost/fairing4j-bench-base:$BASE_VARIANT
  if ! buildah_ inspect --type image "$local_name" >/dev/null 2>&1; then
    log "committing $rootfs with buildah (vfs)"
    local ctr mnt
    ctr=$(buildah_ from scratch)
    mnt=$(buildah_ mount "$ctr")
    tar -C "$rootfs" --numeric-owner -cf - . | tar -C "$mnt" --numeric-owner -xpf -
    buildah_ umount "$ctr" >/dev/null
    buildah_ config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      --cmd '["python3"]' --label org.opencontainers.image.description="fairing4j bench base" \
      "$ctr"
    buildah_ commit -q "$ctr" "$local_name" >/dev/null
    buildah_ rm "$ctr" >/dev/null
  fi
  log "pushing the base to $BASE_REF"
  buildah_ push --tls-verify=false -q "$local_name" "docker://$BASE_REF" >/dev/null
  BASE_CREATED_MS=$(( ($(date +%s%N) - started) / 1000000 ))
}

bench_build() {
  require_tools debootstrap:debootstrap buildah:buildah skopeo:skopeo \
    docker-registry:docker-registry curl:curl setpriv:util-linux java:openjdk-17-jdk-headless \
    mvn:maven
  if [ "$(id -u)" -ne 0 ]; then
    log "run as root: debootstrap and buildah (vfs storage, chroot isolation) need it"
    exit 1
  fi
  mkdir -p "$BENCH_DIR"
  local classpath jar
  classpath=$(bench_classpath)
  # jars only: a class-data sharing archive (the fresh-JVM figures with CDS) cannot cover a
  # class directory
  jar=$(ls sdk-examples/target/sdk-examples-*.jar 2>/dev/null | grep -v -e sources -e tests \
    | head -n 1 || true)
  if [ -n "$jar" ]; then
    classpath=${classpath/#sdk-examples\/target\/classes/$jar}
  fi
  start_registry
  ensure_base
  local manifest
  manifest=$(skopeo inspect --tls-verify=false --raw "docker://$BASE_REF")
  local base_bytes base_layers
  # the first "size" is the config's, the others the (compressed) layers'
  base_bytes=$(echo "$manifest" | grep -o '"size":[0-9]*' | tail -n +2 | cut -d: -f2 \
    | awk '{ sum += $1 } END { print sum + 0 }')
  base_layers=$(( $(echo "$manifest" | grep -o '"size":[0-9]*' | wc -l) - 1 ))
  log "measuring (bounded to ${RUN_LIMIT_S}s)"
  # BENCH_JAVA_OPTS, e.g. -Dorg.slf4j.simpleLogger.log.dev.fairing4j.builder.jib.timing=debug
  # (every Jib step with its time, on stderr)
  # shellcheck disable=SC2086
  timeout --kill-after=10 "$RUN_LIMIT_S" java -cp "$classpath" \
    -Dorg.slf4j.simpleLogger.defaultLogLevel=warn ${BENCH_JAVA_OPTS:-} \
    dev.fairing4j.examples.bench.BuildBenchmark \
    --registry="$REGISTRY" --registry-log="$REGISTRY_LOG" --base="$BASE_REF" \
    --work="$BENCH_DIR/work" --buildah-root="$BENCH_DIR/buildah" \
    --base-variant="$BASE_VARIANT" --base-compressed-bytes="$base_bytes" \
    --base-layers="$base_layers" \
    --base-rootfs-bytes="$(du -sb "$BENCH_DIR/rootfs-$BASE_VARIANT" 2>/dev/null | cut -f1)" \
    --base-created-this-run-ms="$BASE_CREATED_MS" \
    --time-budget-s=$((RUN_LIMIT_S - 60)) \
    "$@"
}

# The local cluster against a plain shell launch of the same training (JVM start excluded).
bench_local() {
  require_tools bwrap:bubblewrap
  if ! /usr/bin/python3 -c "import torch" 2>/dev/null; then
    log "Debian's torch is missing; install with: apt-get install --no-install-recommends python3-torch python3-torchvision"
    exit 1
  fi
  if ! ls /usr/share/python-wheels/setuptools-*.whl >/dev/null 2>&1; then
    log "the local wheelhouse is missing; install with: apt-get install --no-install-recommends python3-pip python3-pip-whl"
    exit 1
  fi
  if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
    log "FashionMNIST is missing; install with: apt-get install dataset-fashion-mnist"
    exit 1
  fi
  local cp
  cp=$(bench_classpath)
  java -cp "$cp" dev.fairing4j.examples.bench.LocalBenchmark "$@"
}

case "${1:-}" in
  load)
    shift
    java -cp "$(bench_classpath)" dev.fairing4j.examples.bench.LoadBenchmark "$@"
    ;;
  local)
    shift
    bench_local "$@"
    ;;
  serve)
    shift
    if ! /usr/bin/python3 -c "import torch" 2>/dev/null; then
      log "Debian's torch is missing; install with: apt-get install --no-install-recommends python3-torch"
      exit 1
    fi
    java -cp "$(bench_classpath)" dev.fairing4j.examples.bench.ServeBenchmark "$@"
    ;;
  tune)
    shift
    require_tools bwrap:bubblewrap
    if ! /usr/bin/python3 -c "import torch" 2>/dev/null; then
      log "Debian's torch is missing; install with: apt-get install --no-install-recommends python3-torch python3-torchvision"
      exit 1
    fi
    if [ ! -f /usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz ]; then
      log "FashionMNIST is missing; install with: apt-get install dataset-fashion-mnist"
      exit 1
    fi
    java -cp "$(bench_classpath)" dev.fairing4j.examples.bench.TuningBenchmark "$@"
    ;;
  api)
    shift
    if [[ -z "${FAIRING4J_K8S:-}" && -d ../shared/k8s ]]; then
      export FAIRING4J_K8S=$(cd ../shared/k8s && pwd)
    fi
    java -cp "$(bench_test_classpath)" dev.fairing4j.examples.bench.ApiBenchmark "$@"
    ;;
  watch)
    shift
    if [[ -z "${FAIRING4J_K8S:-}" && -d ../shared/k8s ]]; then
      export FAIRING4J_K8S=$(cd ../shared/k8s && pwd)
    fi
    java -cp "$(bench_test_classpath)" dev.fairing4j.examples.bench.WatchChoiceBenchmark "$@"
    ;;
  json)
    shift
    java -cp "$(bench_test_classpath)" dev.fairing4j.examples.bench.JsonTreeBenchmark "$@"
    ;;
  soak)
    shift
    require_tools bwrap:bubblewrap setpriv:util-linux java:openjdk-17-jdk-headless mvn:maven
    if [[ -z "${FAIRING4J_K8S:-}" && -d ../shared/k8s ]]; then
      export FAIRING4J_K8S=$(cd ../shared/k8s && pwd)
    fi
    # A small heap, so growth shows as GC work and in the figures rather than hiding in slack.
    java -Xmx256m -cp "$(bench_test_classpath)" dev.fairing4j.examples.bench.SoakBenchmark "$@"
    ;;
  build)
    shift
    bench_build "$@"
    ;;
  kit)
    shift
    if [[ -z "${FAIRING4J_CLUSTER_KUBECONFIG:-}" \
        && -f "$HOME/.cache/fairing4j/k8s/run/admin.kubeconfig" ]]; then
      export FAIRING4J_CLUSTER_KUBECONFIG=$HOME/.cache/fairing4j/k8s/run/admin.kubeconfig
    fi
    java -cp "$(bench_test_classpath)" -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
      dev.fairing4j.examples.KitBenchmark "$@"
    ;;
  -h|--help|help)
    usage
    ;;
  *)
    usage
    exit 2
    ;;
esac
