#!/usr/bin/env bash
# Installs what the test suite needs besides the Rust toolchain: Debian's fio (3.33 on
# bookworm), which tests/fio_vs_ssdlab.rs runs side by side with `ssdlab run --target`.
set -euo pipefail
if command -v fio >/dev/null 2>&1; then
    echo "fio already installed: $(fio --version)"
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
$SUDO apt-get update
$SUDO apt-get install -y fio
fio --version
