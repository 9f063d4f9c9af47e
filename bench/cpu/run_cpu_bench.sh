#!/usr/bin/env bash
# run_cpu_bench.sh - install the peers' packages if needed, then run the CPU
# benchmark (run_cpu_bench.py; its options pass through). tile-jit is taken
# from $TILE_BUILD_DIR/bin (default build/bin) unless --tile-jit is given.
#
#   TILE_BUILD_DIR=build bench/cpu/run_cpu_bench.sh --threads 2 --rounds 3
#   bench/cpu/run_cpu_bench.sh --threads 2 --ab-rounds 7 --ab-only   # A/B only
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
"$HERE/setup.sh"
# Debian's NumPy is installed for Debian's Python; another python3 earlier
# on PATH (pyenv, a venv) may not see it.
PY=/usr/bin/python3
if ! "$PY" -c 'import numpy' 2>/dev/null; then PY=python3; fi
exec "$PY" "$HERE/run_cpu_bench.py" --python "$PY" "$@"
