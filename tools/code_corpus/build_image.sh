#!/usr/bin/env bash
# The offline stand-in image (tools/docker/build_standin_image.sh) plus psutil, which the Iris example's ingestion
# and scoring programs import (codalab/codalab-legacy:py312 has it): codalab-replay/standin-psutil:bullseye.
# psutil's wheel is fetched once with pip (an abi3 wheel, Python >= 3.6) and unpacked into the image's
# dist-packages; nothing else changes. With --alias, the image is also tagged codalab/codalab-legacy:py312 (the
# example's docker_image) when no image has that name, for the local Codabench (as start.sh tags the stand-in).
set -euo pipefail
TAG=codalab-replay/standin-psutil:bullseye
BASE=${CODABENCH_LOCAL_STANDIN:-codalab-replay/standin:bullseye}
docker image inspect "$BASE" > /dev/null 2>&1 || { echo "no $BASE: run tools/docker/build_standin_image.sh" >&2; exit 1; }
if ! docker image inspect "$TAG" > /dev/null 2>&1; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  pip download -q --no-deps --only-binary=:all: --python-version 3.9 --platform manylinux2014_x86_64 \
    psutil==5.9.8 -d "$work"
  wheel=$(cd "$work" && ls psutil-*.whl)
  printf 'FROM %s\nCOPY %s /tmp/\nRUN python3 -m zipfile -e /tmp/%s /usr/lib/python3/dist-packages && rm /tmp/%s\n' \
    "$BASE" "$wheel" "$wheel" "$wheel" > "$work/Dockerfile"
  docker build -q -t "$TAG" "$work" > /dev/null
fi
docker run --rm --network none "$TAG" python3 -c "import psutil" || { echo "psutil does not import in $TAG" >&2; exit 1; }
if [ "${1:-}" = "--alias" ] && ! docker image inspect codalab/codalab-legacy:py312 > /dev/null 2>&1; then
  docker tag "$TAG" codalab/codalab-legacy:py312
fi
echo "$TAG"
