#!/usr/bin/env bash
# install-packages.sh LABEL PACKAGE... - install the Debian packages of the
# list that are not installed yet (apt-get, through sudo when not root),
# saying which under LABEL; nothing to do when all are present. Shared by
# utils/setup.sh and bench/cpu/setup.sh.
set -euo pipefail
LABEL=$1
shift
missing=()
for p in "$@"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "$LABEL: all packages present"
  exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
echo "$LABEL: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
