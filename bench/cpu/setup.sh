#!/usr/bin/env bash
# setup.sh - what the CPU benchmark's peers need, from Debian: NumPy, the
# pthread build of OpenBLAS (which then provides libblas.so.3 to NumPy
# through the alternatives system, instead of the reference BLAS), and
# threadpoolctl to report which OpenBLAS kernel runs. Idempotent.
set -euo pipefail
PACKAGES=(python3-numpy libopenblas0-pthread python3-threadpoolctl)
missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  echo "bench setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
