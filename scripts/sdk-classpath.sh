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
  # Progress, not Maven's output: one line per module built and a running count of the files
  # fetched from Maven Central (a first build downloads a few hundred), with the seconds since
  # the start; the whole output goes to a log whose last lines are shown when the build fails.
  # Maven's jansi writes ESC[0m resets to the terminal even in batch mode: they are stripped.
  local log=$ROOT/sdk-examples/target/sdk-build.log status line downloads=0 began=$SECONDS
  mkdir -p "$(dirname "$log")"
  set +e
  mvn -B -f "$ROOT/pom.xml" "$@" 2>&1 | sed -u 's/\x1b\[[0-9;]*[A-Za-z]//g' | tee "$log" \
    | while IFS= read -r line; do
        case "$line" in
          "[INFO] Building "*"/"*"]")
            line=$(tr -s ' ' <<<"${line#\[INFO\] Building }")
            echo "$who: building $line ($((SECONDS - began)) s)" >&2 ;;
          *"Downloaded from "*)
            downloads=$((downloads + 1))
            if ((downloads % 50 == 0)); then
              echo "$who: $downloads files downloaded from Maven Central" \
                "($((SECONDS - began)) s)" >&2
            fi ;;
        esac
      done
  status=${PIPESTATUS[0]}
  set -e
  if [[ $status -ne 0 ]]; then
    echo "$who: the build failed (exit $status); its errors (whole log: $log):" >&2
    grep -E '^\[ERROR\]' "$log" | head -n 40 >&2 || tail -n 40 "$log" >&2
    exit "$status"
  fi
}

if $rebuild || ! built || { ! $if_missing && changed; }; then
  echo "$who: building the SDK (mvn install, tests skipped; scripts/test.sh runs them): a minute"\
    "or two the first time, most of it fetching ~630 files from Maven Central; seconds after"\
    "that" >&2
  # The -sources.jar files it installs are the documentation jshell.sh shows; javadoc is skipped.
  maven -DskipTests -Dmaven.javadoc.skip=true install
  maven -pl sdk-examples dependency:build-classpath -Dmdep.outputFile=target/classpath.txt \
    -Dmdep.includeScope=runtime
  touch "$stamp"
fi
echo "$classes:$(cat "$listing")"
