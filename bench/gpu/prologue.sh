# prologue.sh - sourced by the run_*.sh scripts with the log's file name:
# strict pipes, $JIT (the static tile-jit, $TILE_JIT or .bundle/tile-jit)
# and $OUT (logs, default /tmp/tile-out), all output copied to $OUT/$1,
# and the machine (GPU, driver, memory, clock) and date first.
set -uo pipefail
JIT=${TILE_JIT:-.bundle/tile-jit}
OUT=${OUT:-/tmp/tile-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/$1") 2>&1
echo "== machine"; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader; date -u
