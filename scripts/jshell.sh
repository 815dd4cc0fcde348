#!/usr/bin/env bash
# JShell with the fairing4j SDK (and the examples) on the class path:
#   scripts/jshell.sh                                 # interactive
#   scripts/jshell.sh sdk-examples/jshell/mnist.jsh   # run a script, then stay in the session
# Builds the SDK once (mvn install, tests skipped) and caches the class path in
# sdk-examples/target/classpath.txt; delete that file to rebuild.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ! -s sdk-examples/target/classpath.txt || ! -d sdk-examples/target/classes ]]; then
  echo "jshell: building the SDK (mvn install, tests skipped)" >&2
  mvn -B -q -ntp -DskipTests install
  mvn -B -q -ntp -pl sdk-examples dependency:build-classpath \
    -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=runtime >/dev/null
fi
exec jshell --class-path "sdk-examples/target/classes:$(cat sdk-examples/target/classpath.txt)" "$@"
