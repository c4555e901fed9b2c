#!/usr/bin/env bash
# Installs what the test suite needs besides the Rust toolchain: Debian's fio (3.33 on
# bookworm), which tests/fio_vs_ssdlab.rs runs side by side with `ssdlab run --target`, and
# Slurm with munge (slurm-wlm, munge), from which tests/cli_slurm.rs starts a single-node cluster,
# and chromium, in which tests/explore_browser.rs opens the `ssdlab explore` pages headless.
# Idempotent: installs only what is missing. Starts no daemon.
set -euo pipefail
need=()
command -v fio >/dev/null 2>&1 || need+=(fio)
command -v slurmctld >/dev/null 2>&1 || [ -x /usr/sbin/slurmctld ] || need+=(slurm-wlm)
command -v munged >/dev/null 2>&1 || [ -x /usr/sbin/munged ] || need+=(munge)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
if [ ${#need[@]} -eq 0 ]; then
    echo "test dependencies already installed:"
    dpkg-query -W -f='  ${Package} ${Version}\n' fio slurm-wlm munge chromium 2>/dev/null || true
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
$SUDO apt-get update
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y "${need[@]}"
dpkg-query -W -f='${Package} ${Version}\n' fio slurm-wlm munge chromium
