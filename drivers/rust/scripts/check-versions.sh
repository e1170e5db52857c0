#!/usr/bin/env bash
# Type-checks the driver against published github-copilot-sdk versions (cargo check, no codegen):
# the compile errors a preparation would hit, without a release build of each (minutes apiece).
#   drivers/rust/scripts/check-versions.sh [VERSION…]   (default: every 1.x the crates index lists)
# Prints "ok VERSION" or "FAIL VERSION" with the first errors; exit 1 if any failed. One target
# folder is shared (CHECK_TARGET_DIR, default /tmp/conformance-rust-check): the dependencies are
# checked once. A real preparation is `conformance prepare --sdk rust --sdk-version V`.
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$here"/{Cargo.toml,Cargo.lock,src} "$here"/build*.rs "$work"/
cd "$work"
export COPILOT_SKIP_CLI_DOWNLOAD=1 CARGO_TARGET_DIR="${CHECK_TARGET_DIR:-/tmp/conformance-rust-check}" CARGO_TERM_COLOR=never
versions=("$@")
if [ ${#versions[@]} -eq 0 ]; then
  mapfile -t versions < <(curl -fsS https://index.crates.io/gi/th/github-copilot-sdk |
    python3 -c 'import sys, json; [print(json.loads(l)["vers"]) for l in sys.stdin if l.strip() and json.loads(l)["vers"].startswith("1.")]')
fi
dep() { sed -i "s|^github-copilot-sdk = .*|github-copilot-sdk = { version = \"=$1\", default-features = false$2 }|" Cargo.toml; }
failed=0
for v in "${versions[@]}"; do
  dep "$v" ', features = ["runtime"]'
  if ! out=$(cargo update --package github-copilot-sdk 2>&1); then
    # Releases before the `runtime` feature have none to ask for (as the recipe does).
    if grep -q 'does not have\( that\)\? feature' <<<"$out"; then dep "$v" ""; out=$(cargo update --package github-copilot-sdk 2>&1) || { echo "UNAVAILABLE $v: $(tail -1 <<<"$out")"; continue; }
    else echo "UNAVAILABLE $v: $(tail -1 <<<"$out")"; continue; fi
  fi
  if out=$(cargo check --quiet 2>&1); then echo "ok $v"; else echo "FAIL $v"; grep -E '^error' -A5 <<<"$out" | head -20; failed=1; fi
done
exit $failed
