#!/usr/bin/env bash
# Makes a release of fairing4j from this tree, without touching it: sdk-core, sdk-builder,
# sdk-deployer (flattened POMs: no parent) and the BOM (fairing4j-bom), each jar module with its
# sources and javadoc jars, its CycloneDX SBOM and its .buildinfo; MD5/SHA-1 checksums and a PGP
# signature on every file.
#
#   scripts/release.sh VERSION [--out DIR] [--throwaway-key] [--check-reproducible]
#
# It writes, under DIR (default target/release/VERSION):
#   repository/         a Maven file repository of the release (what users point a build at)
#   central-bundle.zip  the same files, as the Central Portal's upload takes them
#   apidocs/            the aggregated javadoc of the public packages
#   source/             the tree it built, at VERSION
#
# The signing key comes from the environment, as maven-gpg-plugin reads it: MAVEN_GPG_KEY (the
# armored secret key, `gpg --armor --export-secret-keys KEYID`) and MAVEN_GPG_PASSPHRASE when the
# key has one. --throwaway-key makes a key for this run only (tests, rehearsals): Central accepts
# a bundle only when the key's public half is on a key server, so never upload such a bundle.
# --check-reproducible builds the release a second time from the same source and compares every
# file with the first, byte by byte; it fails on one different byte.
#
# It needs no network beyond Maven Central (plugins), runs no tests (CI does: scripts/test.sh) and
# installs nothing into ~/.m2. Uploading is left to the person releasing: sign in to
# https://central.sonatype.com, Publish, upload central-bundle.zip; then tag the commit (it prints
# the command).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
started=$SECONDS

usage() {
  echo "usage: scripts/release.sh VERSION [--out DIR] [--throwaway-key] [--check-reproducible]" >&2
  echo "  VERSION is MAJOR.MINOR.PATCH, e.g. 0.1.0 (no -SNAPSHOT: that is the tree's own version)" >&2
  exit 2
}
version=${1:-}
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || {
  [[ -n $version ]] && echo "release: '$version' is not a release version" >&2
  usage
}
shift
out=""
throwaway=0
reproducible=0
while [[ $# -gt 0 ]]; do
  case $1 in
    --out) [[ $# -ge 2 ]] || usage; out=$2; shift 2 ;;
    --out=*) out=${1#--out=}; shift ;;
    --throwaway-key) throwaway=1; shift ;;
    --check-reproducible) reproducible=1; shift ;;
    *) echo "release: unknown option '$1'" >&2; usage ;;
  esac
done
out=${out:-$root/target/release/$version}
mkdir -p "$out"
out=$(cd "$out" && pwd)
step() { echo "release: [$((SECONDS - started)) s] $*"; }

current=$(sed -n '/<artifactId>fairing4j-parent<\/artifactId>/{n;s/.*<version>\(.*\)<\/version>.*/\1/p;q}' \
  "$root/pom.xml")
[[ -n $current ]] || { echo "release: cannot read the reactor's version in pom.xml" >&2; exit 1; }

if [[ $throwaway -eq 1 ]]; then
  GNUPGHOME=$(mktemp -d)
  export GNUPGHOME
  trap 'rm -rf "$GNUPGHOME"' EXIT
  gpg --batch --quiet --passphrase '' --quick-gen-key \
    "fairing4j throw-away release key <release-test@fairing4j.invalid>" rsa3072 sign 1d
  MAVEN_GPG_KEY=$(gpg --batch --armor --export-secret-keys)
  gpg --batch --armor --export > "$out/throwaway-key.asc"
  export MAVEN_GPG_KEY
  unset MAVEN_GPG_PASSPHRASE
  step "signing with a throw-away key (public half: $out/throwaway-key.asc); do not upload this bundle"
elif [[ -z ${MAVEN_GPG_KEY:-} ]]; then
  echo "release: MAVEN_GPG_KEY is not set: export it with the armored secret key that signs the" \
    "release (MAVEN_GPG_KEY=\$(gpg --armor --export-secret-keys KEYID); MAVEN_GPG_PASSPHRASE too" \
    "if it has one), or pass --throwaway-key for a rehearsal" >&2
  exit 2
fi

# The tree as git sees it (tracked files and new ones it does not ignore), never build outputs.
# Outside a git checkout (an unpacked source archive): every file but build outputs.
rm -rf "$out/source" "$out/repository" "$out/apidocs" "$out/central-bundle.zip"
mkdir -p "$out/source"
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
  commit=$(git -C "$root" rev-parse --short HEAD)
  step "copying the tree at $commit into $out/source"
  (cd "$root" && git ls-files -z -co --exclude-standard | while IFS= read -r -d '' f; do
    [[ -e $f ]] && printf '%s\0' "$f"; done | tar --null -T - -cf -) | tar -C "$out/source" -xf -
  if [[ -n $(git -C "$root" status --porcelain) ]]; then
    echo "release: warning: the tree has uncommitted changes; they are in this build, and no tag" \
      "can name it" >&2
  fi
  # The released commit's time, so that two builds of it give the same bytes.
  stamp=$(TZ=UTC git -C "$root" log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd)
else
  commit=COMMIT
  step "not a git checkout: copying every file but build outputs into $out/source"
  (cd "$root" && tar --exclude=./target --exclude='./sdk-*/target' --exclude=./.git -cf - .) \
    | tar -C "$out/source" -xf -
  stamp=$(sed -n 's|.*<project.build.outputTimestamp>\([^<]*\)<.*|\1|p' "$root/pom.xml")
fi

step "version $current -> $version, timestamp $stamp"
for pom in "$out/source/pom.xml" "$out/source/bom.xml" "$out"/source/sdk-*/pom.xml; do
  sed -i -e "s|<version>$current</version>|<version>$version</version>|" \
    -e "s|<tag>HEAD</tag>|<tag>v$version</tag>|" \
    -e "s|<project.build.outputTimestamp>[^<]*<|<project.build.outputTimestamp>$stamp<|" "$pom"
done
if grep -rq -- "$current" "$out/source/pom.xml" "$out/source/bom.xml" "$out"/source/sdk-*/pom.xml; then
  echo "release: $current is still named in a POM after setting $version" >&2
  exit 1
fi

# sdk-examples is not published; -DskipTests still compiles the tests, as sdk-core's fixtures jar
# (which the other modules' tests need) is built from them.
build=(mvn -B -ntp -f "$out/source/pom.xml" -Prelease -pl '!sdk-examples' -DskipTests
  -Dmaven.install.skip=true)
step "building and signing (mvn -Prelease deploy to $out/repository)"
# In the same run, what each module ran with: its runtime dependencies as this build resolved
# them. The published POMs must bring exactly these (ReleaseIT resolves each module from the
# repository and compares): flattening drops a dependency that the build reached first through
# a test-scoped one.
"${build[@]}" deploy -DaltDeploymentRepository="release::file://$out/repository" \
  dependency:list -DincludeScope=runtime -Dsort=true -DoutputFile=target/runtime-dependencies.txt
rm -rf "$out/runtime-dependencies"
mkdir -p "$out/runtime-dependencies"
for module in sdk-core sdk-builder sdk-deployer; do
  cp "$out/source/$module/target/runtime-dependencies.txt" "$out/runtime-dependencies/$module.txt"
done

# The test fixtures jar is for this build's own tests: its dependencies are test-scoped and would
# not come with it. Central needs nothing of it.
drop_fixtures() { find "$1" -name 'sdk-core-*-tests.jar*' -delete; }
drop_fixtures "$out/repository"

step "aggregated javadoc into $out/apidocs"
mvn -B -ntp -q -f "$out/source/pom.xml" -pl '!sdk-examples,!bom.xml' javadoc:aggregate \
  -Dmaven.javadoc.failOnWarnings=false
rm -rf "$out/apidocs"
cp -r "$out/source/target/reports/apidocs" "$out/apidocs"

step "central-bundle.zip"
(cd "$out/repository" && find dev -type f ! -name 'maven-metadata*' | LC_ALL=C sort \
  | zip -q -X "$out/central-bundle.zip" -@)

if [[ $reproducible -eq 1 ]]; then
  # A second build from the same source into a repository of its own, compared file by file.
  # (artifact:compare would fetch the reference through ~/.m2 and leave the release there.)
  step "building again from the same source and comparing every file"
  rm -rf "$out/rebuild"
  "${build[@]}" clean deploy -Dgpg.skip=true -DaltDeploymentRepository="rebuild::file://$out/rebuild"
  drop_fixtures "$out/rebuild"
  differ=0 same=0
  while IFS= read -r f; do
    if cmp -s "$out/repository/$f" "$out/rebuild/$f"; then
      same=$((same + 1))
    else
      differ=$((differ + 1))
      echo "release: differs between the two builds: $f" >&2
    fi
  done < <(cd "$out/rebuild" && find dev -type f ! -name 'maven-metadata*' ! -name '*.md5' \
    ! -name '*.sha1' | LC_ALL=C sort)
  missing=$(cd "$out/repository" && find dev -type f ! -name 'maven-metadata*' ! -name '*.md5' \
    ! -name '*.sha1' ! -name '*.asc' | while read -r f; do [[ -e $out/rebuild/$f ]] || echo "$f"; done)
  if [[ $differ -gt 0 || -n $missing ]]; then
    echo "release: NOT reproducible: $differ files differ${missing:+; not rebuilt: $missing}" >&2
    exit 1
  fi
  rm -rf "$out/rebuild"
  step "reproducible: the second build's $same files are byte-identical to the first's"
fi

step "done"
echo "release: $version in $out"
echo "release:   repository/         $(find "$out/repository" -type f ! -name 'maven-metadata*' | wc -l) files"
echo "release:   central-bundle.zip  $(du -k "$out/central-bundle.zip" | cut -f1) KiB"
echo "release:   apidocs/index.html"
echo "release: to publish: upload central-bundle.zip at https://central.sonatype.com/publishing;" \
  "then: git tag -s v$version $commit && git push origin v$version"
