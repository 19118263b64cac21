#!/usr/bin/env bash
# Build the offline stand-in for the platform's scoring image, for machines that cannot pull from Docker Hub.
#
#   tools/docker/build_standin_image.sh [--force] [--tag TAG] [--mirror URL]
#
# Debian bullseye (minbase) with the distribution's python3, numpy, pandas, scikit-learn and PyYAML, made with
# debootstrap and loaded with `docker import`: no registry is involved. Its old stack (Python 3.9, pandas 1.1,
# scikit-learn 0.23) catches programs that rely on today's libraries, paths or permissions; it is still newer than
# codalab/codalab-legacy:py37 (Python 3.7, pandas 0.25, scikit-learn 0.21), so keep checking syntax with vermin.
# The tag is deliberately distinct from the platform's, so it is never mistaken for it.
# Skips the build when the tag is already present, unless --force. Needs root (debootstrap) and a running engine
# (tools/docker/ensure_engine.sh). The mirror defaults to the Debian mirror of this machine's apt sources.
set -euo pipefail

TAG="codalab-replay/standin:bullseye"
FORCE=0
MIRROR=""
SUITE="bullseye"
PACKAGES="python3,python-is-python3,python3-numpy,python3-pandas,python3-sklearn,python3-yaml"
IMAGE_PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

say() { echo "build_standin_image: $*" >&2; }
fail() { say "$*"; exit 1; }

while [ $# -gt 0 ]; do
    case "$1" in
        --force) FORCE=1 ;;
        --tag) TAG="${2:?--tag needs a value}"; shift ;;
        --mirror) MIRROR="${2:?--mirror needs a value}"; shift ;;
        -h|--help) sed -n '2,12s/^# \{0,1\}//p' "$0"; exit 0 ;;
        *) fail "unknown argument: $1 (see --help)" ;;
    esac
    shift
done

docker info >/dev/null 2>&1 || fail "the Docker engine does not answer; run tools/docker/ensure_engine.sh first"

present() { [ "$FORCE" = 0 ] && docker image inspect "$TAG" >/dev/null 2>&1; }
if present; then
    say "$TAG is present (use --force to rebuild)"
    exit 0
fi

[ "$(id -u)" = 0 ] || fail "debootstrap needs root: run this script as root (e.g. with sudo)"

# One build at a time on this machine (two test sessions may ask at once); the second one then finds the image.
exec 9>"/tmp/codalab-replay-standin.lock"
if command -v flock >/dev/null 2>&1; then
    flock 9
    if present; then
        say "$TAG was built meanwhile"
        exit 0
    fi
fi

# The first plain Debian archive among apt's sources (deb822 *.sources and one-line *.list files).
apt_debian_mirror() {
    local files=(/etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources)
    cat "${files[@]}" 2>/dev/null \
        | sed -n -e 's/^URIs:[[:space:]]*//p' -e 's/^deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\{0,1\}//p' \
        | tr ' ' '\n' | grep -E '^(https?|file)://[^ ]*/debian/?$' | head -n 1
}
if [ -z "$MIRROR" ]; then
    MIRROR="$(apt_debian_mirror || true)"
    MIRROR="${MIRROR:-http://deb.debian.org/debian}"
fi

if ! command -v debootstrap >/dev/null 2>&1; then
    say "installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq \
        && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap \
            debian-archive-keyring >&2 \
        || fail "could not install debootstrap"
fi

WORK="$(mktemp -d /var/tmp/codalab-standin.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
ROOTFS="$WORK/rootfs"
started=$(date +%s)

say "debootstrap $SUITE from $MIRROR (log: $WORK/debootstrap.log, kept on failure in /tmp)"
if ! debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$ROOTFS" "$MIRROR" >"$WORK/debootstrap.log" 2>&1; then
    cp "$WORK/debootstrap.log" /tmp/codalab-standin-debootstrap.log
    fail "debootstrap failed: $(tail -n 1 "$WORK/debootstrap.log") (full log: /tmp/codalab-standin-debootstrap.log)"
fi
# Downloaded .debs and package lists are not needed to run programs (apt-get update restores the lists).
rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/*

say "importing as $TAG"
tar -C "$ROOTFS" -c . | docker import \
    --change "ENV PATH=$IMAGE_PATH" \
    --change 'CMD ["python3"]' \
    --change 'LABEL org.opencontainers.image.description="Offline stand-in for the CodaLab scoring image (Debian bullseye, debootstrap)"' \
    --message "codalab-replay stand-in: debootstrap --variant=minbase $SUITE $MIRROR" \
    - "$TAG" >/dev/null

check='import sys, numpy, pandas, sklearn, yaml; print("Python %s, numpy %s, pandas %s, scikit-learn %s, PyYAML %s" % (sys.version.split()[0], numpy.__version__, pandas.__version__, sklearn.__version__, yaml.__version__))'
if ! versions="$(docker run --rm --network none "$TAG" python -c "$check" 2>&1)" \
        || ! docker run --rm --network none "$TAG" python3 -c "import sklearn, pandas" >/dev/null 2>&1; then
    docker image rm "$TAG" >/dev/null 2>&1 || true
    fail "the imported image does not run python3 with pandas and scikit-learn: $versions"
fi

size=$(docker image inspect --format '{{.Size}}' "$TAG")
say "built $TAG in $(( $(date +%s) - started )) s, $(( size / 1000000 )) MB: $versions"
