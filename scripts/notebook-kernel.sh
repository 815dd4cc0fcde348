#!/usr/bin/env bash
# Installs the rapaio Java kernel for Jupyter (io.github.padreati:rapaio-jupyter-kernel from Maven
# Central) so a notebook loads fairing4j with one %dependency line:
#   scripts/notebook-kernel.sh [--kernel-dir DIR] [--jupyter-dir DIR] [--jar FILE]
# --kernel-dir  where the kernel jar and its dependency cache (mima_cache) live;
#               default ~/.local/share/fairing4j/rapaio-kernel
# --jupyter-dir the Jupyter data directory to put the kernelspec in (kernels/rapaio-jupyter-kernel);
#               default: the user's (jupyter --data-dir)
# --jar         use this kernel jar instead of fetching it with Maven
# The kernel reads the local Maven repository (~/.m2/repository, or M2_REPO), where `mvn install`
# puts the SDK, as a read-only tail of its own cache. Prints the kernelspec directory.
set -euo pipefail
VERSION=3.0.1
NAME=rapaio-jupyter-kernel
kernel_dir=${HOME}/.local/share/fairing4j/rapaio-kernel
jupyter_dir=""
jar=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --kernel-dir) kernel_dir=$2; shift 2 ;;
    --jupyter-dir) jupyter_dir=$2; shift 2 ;;
    --jar) jar=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "notebook-kernel: unknown option $1 (--help lists them)" >&2; exit 2 ;;
  esac
done
command -v java >/dev/null || { echo "notebook-kernel: java is missing; install it: apt-get install openjdk-17-jdk-headless" >&2; exit 1; }
if [[ -z $jupyter_dir ]]; then
  command -v jupyter >/dev/null || { echo "notebook-kernel: jupyter is missing; install it: apt-get install jupyter-notebook (or pip install jupyterlab)" >&2; exit 1; }
  jupyter_dir=$(jupyter --data-dir)
fi
mkdir -p "$kernel_dir"
kernel_dir=$(cd "$kernel_dir" && pwd)
if [[ -n $jar ]]; then
  cp "$jar" "$kernel_dir/$NAME.jar"
else
  if [[ ! -s $kernel_dir/$NAME-$VERSION.jar ]]; then
    echo "notebook-kernel: fetching io.github.padreati:$NAME:$VERSION with Maven" >&2
    # Maven 3.8 writes terminal codes (ESC[0m) even with -B -q: all of its output goes to
    # stderr, with them stripped, so a terminal shows no stray codes and a log no escapes.
    mvn -B -q -ntp dependency:copy -Dstyle.color=never -Dartifact="io.github.padreati:$NAME:$VERSION" \
      -DoutputDirectory="$kernel_dir" 2>&1 | sed -u 's/\x1b\[[0-9;]*[A-Za-z]//g' >&2
    [[ ${PIPESTATUS[0]} -eq 0 ]] || { echo "notebook-kernel: Maven could not fetch the kernel" >&2; exit 1; }
  fi
  cp "$kernel_dir/$NAME-$VERSION.jar" "$kernel_dir/$NAME.jar"
fi
# rapaio 3.0.1's LoopThread has two start-up races, each leaving a kernel that never answers
# ("Kernel didn't respond in 60 seconds"):
# - it sets its running flag after Thread.start(), so a channel's loop can end before it begins
#   (about one kernel start in four);
# - the channels listen before their handler table exists, so a kernel_info_request that arrives
#   in that window throws a NullPointerException that ends the shell loop for good (seen in CI
#   under load). Jupyter asks again every second, so a loop that outlives one failed message
#   answers the next.
# This copy sets the flag first and keeps looping past a failed message; it comes before the jar
# on the class path.
command -v javac >/dev/null || { echo "notebook-kernel: javac is missing; install it: apt-get install openjdk-17-jdk-headless" >&2; exit 1; }
fix=$kernel_dir/loop-thread-fix
mkdir -p "$fix/src"
cat > "$fix/src/LoopThread.java" <<'JAVA'
package org.rapaio.jupyter.kernel.channels;

/** rapaio's channel loop, running from before the thread starts and past a failed message. */
public final class LoopThread extends Thread {
  private volatile boolean running;
  private final long sleep;
  private final Runnable loopBody;

  public LoopThread(String name, long sleep, Runnable loopBody) {
    super(name);
    this.sleep = sleep;
    this.loopBody = loopBody;
  }

  @Override
  public void run() {
    while (running) {
      try {
        loopBody.run();
      } catch (RuntimeException e) {
        // One message that fails must not leave the channel deaf to every later one.
        System.err.println(getName() + ": a message failed and was dropped: " + e);
      }
      try {
        Thread.sleep(sleep);
      } catch (InterruptedException e) {
        running = false;
        return;
      }
    }
  }

  @Override
  public synchronized void start() {
    running = true;
    super.start();
  }

  public void shutdown() {
    running = false;
  }
}
JAVA
rm -rf "$fix/classes"
javac --release 17 -d "$fix/classes" "$fix/src/LoopThread.java" >&2
m2=${M2_REPO:-$HOME/.m2/repository}
spec=$jupyter_dir/kernels/$NAME
mkdir -p "$spec"
# RJK_TIMEOUT_MILLIS=-1: a cell that waits for a training job has no time limit.
# slf4j.internal.verbosity=ERROR: the SDK brings no logging binding, and SLF4J's note about that
# would show in red under the first cell; add one with %dependency to see the SDK's log.
cat > "$spec/kernel.json" <<JSON
{
  "argv": ["java", "-Dmaven.repo.local.tail=$m2", "-Dslf4j.internal.verbosity=ERROR",
           "-cp", "$fix/classes:$kernel_dir/$NAME.jar", "org.rapaio.jupyter.kernel.MainApp",
           "{connection_file}"],
  "display_name": "Java (rapaio)",
  "language": "java",
  "interrupt_mode": "message",
  "env": {"RJK_TIMEOUT_MILLIS": "-1"}
}
JSON
echo "$spec"
