#!/usr/bin/env bash
# Installs the peer libraries that bench/peers measures against (Debian packages):
# OpenBLAS, BLIS and oneDNN, PyTorch (python3-torch, for the mnist suite; run by
# /usr/bin/python3), plus a C compiler for cgo. Idempotent: when everything is
# present it only checks dpkg and exits, without touching the network.
set -euo pipefail

pkgs=(libopenblas-dev libblis-dev libdnnl-dev python3-torch gcc)
missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done

if [ ${#missing[@]} -eq 0 ]; then
	echo "bench/peers/setup.sh: all peer libraries already installed" >&2
	exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
	sudo="sudo"
fi
echo "bench/peers/setup.sh: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
echo "bench/peers/setup.sh: done" >&2
