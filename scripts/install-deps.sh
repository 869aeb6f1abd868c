#!/usr/bin/env bash
# Installs the Debian packages Meridian needs, only those that are missing.
# Usage: scripts/install-deps.sh [extra packages…]
set -euo pipefail
packages=(libgeos-dev libproj-dev proj-data libsqlite3-dev pkg-config "$@")
missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq "${missing[@]}"
