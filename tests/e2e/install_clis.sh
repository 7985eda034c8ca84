#!/usr/bin/env bash
# Install the pinned harness CLIs the end-to-end tier drives, once per set of versions.
#
#   tests/e2e/install_clis.sh          # prints the cache folder (its node_modules/.bin has the CLIs)
#
# The cache is ${MEMHOOKS_E2E_CACHE:-$HOME/.cache/memhooks-e2e}/<hash of the versions>/; a folder
# holding a `.done` stamp is reused as it is. Without npm it exits 3 (the tier then skips,
# except under CI=true, where it fails).
set -euo pipefail

PACKAGES=(
  "@anthropic-ai/claude-code@2.1.332"
  "@openai/codex@0.171.0"
  "@google/gemini-cli@0.61.0"
)

if ! command -v npm >/dev/null 2>&1; then
  echo "install_clis: npm not found; the end-to-end tier needs Node.js >= 20 and npm" >&2
  exit 3
fi

base="${MEMHOOKS_E2E_CACHE:-$HOME/.cache/memhooks-e2e}"
key="$(printf '%s\n' "${PACKAGES[@]}" "node $(node --version)" | sha256sum | cut -c1-16)"
dir="$base/$key"
mkdir -p "$base"
# One install at a time: `make test`'s workers each ask for the CLIs when they start.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$base/.lock"
  flock 9
fi
if [[ -f "$dir/.done" ]]; then
  echo "$dir"
  exit 0
fi

tmp="$(mktemp -d "$base/.tmp-XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
echo "install_clis: installing ${PACKAGES[*]} into $dir" >&2
# --ignore-scripts stays off: Claude Code's postinstall links its platform binary.
npm install --prefix "$tmp" --no-audit --no-fund --no-save --loglevel=error "${PACKAGES[@]}" >&2
printf '%s\n' "${PACKAGES[@]}" >"$tmp/versions.txt"
touch "$tmp/.done"
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT
echo "$dir"
