#!/usr/bin/env bash
# Prints the class path of the SDK and its examples (sdk-examples/target/classes and every runtime
# dependency, absolute paths), building them first with `mvn install` (tests skipped):
#   scripts/sdk-classpath.sh [--if-missing] [WHO]
# --if-missing builds only when nothing was built yet; WHO prefixes the "building" line.
# Everything Maven prints goes to stderr (Maven 3.8 writes terminal reset codes even with -B), so
# stdout carries only the class path and the scripts that use it print only their product.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if_missing=false
if [[ "${1:-}" == --if-missing ]]; then if_missing=true; shift; fi
who=${1:-sdk}
classes=$ROOT/sdk-examples/target/classes
listing=$ROOT/sdk-examples/target/classpath.txt
if [[ $if_missing == false || ! -s $listing || ! -d $classes ]]; then
  echo "$who: building the SDK (mvn install, tests skipped; scripts/test.sh runs them)" >&2
  # The -sources.jar files it installs are the documentation jshell.sh shows; javadoc is skipped.
  mvn -B -q -ntp -f "$ROOT/pom.xml" -DskipTests -Dmaven.javadoc.skip=true install >&2
  mvn -B -q -ntp -f "$ROOT/pom.xml" -pl sdk-examples dependency:build-classpath \
    -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=runtime >&2
fi
echo "$classes:$(cat "$listing")"
