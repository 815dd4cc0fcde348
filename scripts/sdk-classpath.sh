#!/usr/bin/env bash
# Prints the class path of the SDK and its examples (sdk-examples/target/classes and every runtime
# dependency, absolute paths), building them first with `mvn install` (tests skipped) when a
# source or POM changed since the last build:
#   scripts/sdk-classpath.sh [--if-missing] [--rebuild] [WHO]
# --if-missing builds only when nothing was built yet; --rebuild builds whatever the stamp says;
# WHO prefixes the "building" line.
# Everything Maven prints goes to stderr, without the terminal reset codes Maven 3.8 writes even
# with -B, so stdout carries only the class path and the scripts that use it print only their
# product.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if_missing=false
rebuild=false
while [[ "${1:-}" == --* ]]; do
  case "$1" in
    --if-missing) if_missing=true ;;
    --rebuild) rebuild=true ;;
    *) echo "sdk-classpath.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
who=${1:-sdk}
classes=$ROOT/sdk-examples/target/classes
listing=$ROOT/sdk-examples/target/classpath.txt
# Touched after each successful build: a later build is needed only when a file of the build
# (a POM, anything under a module's src/) is newer, the way make decides.
stamp=$ROOT/sdk-examples/target/.sdk-classpath.stamp

built() {
  [[ -s $listing && -d $classes && -f $stamp ]]
}
changed() {
  [[ -n $(find "$ROOT/pom.xml" "$ROOT"/sdk-*/pom.xml "$ROOT"/sdk-*/src -newer "$stamp" \
    -print -quit 2>/dev/null) ]]
}
maven() {
  # Maven's jansi writes ESC[0m resets to the terminal even in batch mode: strip them.
  mvn -B -q -ntp -f "$ROOT/pom.xml" "$@" 2>&1 | sed -u 's/\x1b\[[0-9;]*[A-Za-z]//g' >&2
}

if $rebuild || ! built || { ! $if_missing && changed; }; then
  echo "$who: building the SDK (mvn install, tests skipped; scripts/test.sh runs them)" >&2
  # The -sources.jar files it installs are the documentation jshell.sh shows; javadoc is skipped.
  maven -DskipTests -Dmaven.javadoc.skip=true install
  maven -pl sdk-examples dependency:build-classpath -Dmdep.outputFile=target/classpath.txt \
    -Dmdep.includeScope=runtime
  touch "$stamp"
fi
echo "$classes:$(cat "$listing")"
