package dev.fairing4j.builder.internal.preprocess;

/**
 * The start-up wrapper that installs a job's {@code requirements.txt} before its command runs.
 *
 * <p>It runs {@code pip install --target <dir> -r requirements.txt} and puts {@code <dir>} first on
 * {@code PYTHONPATH}, then {@code exec}s the command. A target directory works where a system
 * Python refuses installs (PEP 668, e.g. Debian's) and needs no virtual environment. A stamp file
 * makes a restart with the same requirements skip the install. The paths come from environment
 * variables so the local cluster can point them at its run directory.
 */
public final class RequirementsBootstrap {
  /** Where the packages go; default {@link #DEFAULT_SITE_PACKAGES}. */
  public static final String SITE_PACKAGES_ENV = "FAIRING4J_SITE_PACKAGES";
  /** The requirements file the wrapper installs. */
  public static final String REQUIREMENTS_ENV = "FAIRING4J_REQUIREMENTS";
  /** The interpreter whose pip installs; default the first of python, python3 on PATH. */
  public static final String PYTHON_ENV = "FAIRING4J_PYTHON";
  /** /tmp is writable for any user in nearly every image, also when the job runs as non-root. */
  public static final String DEFAULT_SITE_PACKAGES = "/tmp/fairing4j/site-packages";
  /** The wrapper's file name below {@code <prefix>/.fairing4j/}. */
  public static final String FILE_NAME = "bootstrap.sh";

  private RequirementsBootstrap() {}

  /** The wrapper script; {@code defaultRequirements} is used when the variable is unset. */
  public static String script(String defaultRequirements) {
    return """
        #!/bin/sh
        # Written by fairing4j: installs the job's requirements, then runs its command ("$@").
        # pip --target works where the system Python refuses installs (PEP 668) and needs no venv.
        set -eu
        requirements="${FAIRING4J_REQUIREMENTS:-%s}"
        target="${FAIRING4J_SITE_PACKAGES:-%s}"
        if [ -n "${FAIRING4J_PYTHON:-}" ]; then python="$FAIRING4J_PYTHON"
        elif command -v python >/dev/null 2>&1; then python=python
        else python=python3; fi
        stamp="$target/.fairing4j-requirements.txt"
        if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$(cat "$requirements")" ]; then
          echo "fairing4j: installing $requirements into $target" >&2
          mkdir -p "$target"
          "$python" -m pip install --quiet --disable-pip-version-check --no-input --upgrade \\
            --no-warn-script-location --target "$target" -r "$requirements"
          cp "$requirements" "$stamp"
        fi
        export PYTHONPATH="$target${PYTHONPATH:+:$PYTHONPATH}"
        exec "$@"
        """.formatted(defaultRequirements, DEFAULT_SITE_PACKAGES);
  }
}
