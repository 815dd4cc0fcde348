#!/usr/bin/env bash
# JShell with the fairing4j SDK (and the examples) on the class path:
#   scripts/jshell.sh                                 # interactive
#   scripts/jshell.sh sdk-examples/jshell/mnist.jsh   # run a script, then stay in the session
# Run it from any directory: relative paths resolve against the caller's directory.
# Builds the SDK once (mvn install, tests skipped) and caches the class path in
# sdk-examples/target/classpath.txt; delete that file to rebuild.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# The caller's directory stays the working directory: scripts given as arguments and paths inside
# them (Path.of("train.py")) resolve where the user is, as with plain jshell.
classpath=$(bash "$ROOT/scripts/sdk-classpath.sh" --if-missing jshell)
exec jshell --class-path "$classpath" "$@"
