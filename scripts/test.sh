#!/usr/bin/env bash
# The whole test gate, as CI runs it: installs the Debian packages the tests need, then checks
# formatting, lints (clippy, warnings are errors), the API docs (rustdoc, warnings are errors)
# and runs every test. Run from anywhere; `.ci/run` calls it with CI=true.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-test-deps.sh
cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
cargo test --workspace
