#!/usr/bin/env bash
# setup.sh - what the CPU benchmark's peers need, from Debian: NumPy, the
# pthread build of OpenBLAS (which then provides libblas.so.3 to NumPy
# through the alternatives system, instead of the reference BLAS), and
# threadpoolctl to report which OpenBLAS kernel runs. Idempotent.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bash "$ROOT/utils/install-packages.sh" "bench setup" python3-numpy \
  libopenblas0-pthread python3-threadpoolctl
