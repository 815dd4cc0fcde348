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
# The jshell tool, started by JShellWithSources.java so that Tab shows the javadoc of the SDK (its
# -sources.jar beside each jar): JDK 17's jshell reads documentation only from the JDK's src.zip.
# Its options are jshell's, but for -J (give JVM options to this java instead).
exec java --add-opens jdk.jshell/jdk.jshell=ALL-UNNAMED "$ROOT/scripts/JShellWithSources.java" \
  --class-path "$classpath" "$@"
