#!/usr/bin/env bash
# Build a Lean workspace for `kimina-verify serve`: elan, the Lean toolchain, Mathlib with its downloaded build
# cache, and the Lean REPL at the tag matching the toolchain. Used by infra/lean/Dockerfile; runs on a bare
# Linux machine too (needs curl, git and network access to GitHub and the Mathlib cache).
#
#   infra/lean/setup-workspace.sh /opt/lean                      # Lean v4.15.0, Mathlib v4.15.0, REPL v4.15.0
#   LEAN_VERSION=v4.19.0 infra/lean/setup-workspace.sh ~/lean    # another version (Mathlib and REPL follow)
#   MATHLIB_REV=9837ca9d65d9de6fad1ef4381750ca688774e608 REPL_REV=21966799da3691a0912b5a15193585bd2dd7165d \
#     infra/lean/setup-workspace.sh /opt/lean                    # the exact commits Kimina-Prover Preview used
#
# Result (what the server's defaults and KIMINA_LEAN_WORKSPACE expect):
#   WORKSPACE/mathlib4/                   the Lake project each REPL runs in (LEAN_SERVER_PROJECT_DIR)
#   WORKSPACE/repl/.lake/build/bin/repl   the REPL binary, run as `lake env <repl>` (LEAN_SERVER_REPL_PATH)
# UNTESTED here: the project's CI machines have no network access to GitHub or the Lean release servers.
set -euo pipefail

WORKSPACE=${1:?usage: setup-workspace.sh WORKSPACE_DIR}
LEAN_VERSION=${LEAN_VERSION:-v4.15.0}
MATHLIB_REV=${MATHLIB_REV:-$LEAN_VERSION}
REPL_REV=${REPL_REV:-$LEAN_VERSION}
MATHLIB_URL=${MATHLIB_URL:-https://github.com/leanprover-community/mathlib4}
REPL_URL=${REPL_URL:-https://github.com/leanprover-community/repl}

say() { printf '\n== %s\n' "$*"; }

# Shallow checkout of a tag, branch or full commit hash.
checkout() {
  local url=$1 rev=$2 dir=$3
  mkdir -p "$dir"
  git -C "$dir" init --quiet
  git -C "$dir" fetch --quiet --depth 1 "$url" "$rev"
  git -C "$dir" -c advice.detachedHead=false checkout --quiet FETCH_HEAD
}

if ! command -v elan >/dev/null 2>&1; then
  say "installing elan"
  curl -sSfL https://raw.githubusercontent.com/leanprover/elan/master/elan-init.sh \
    | sh -s -- -y --no-modify-path --default-toolchain none
  export PATH="$HOME/.elan/bin:$PATH"
fi

mkdir -p "$WORKSPACE"
WORKSPACE=$(cd "$WORKSPACE" && pwd)

say "Mathlib $MATHLIB_REV"
checkout "$MATHLIB_URL" "$MATHLIB_REV" "$WORKSPACE/mathlib4"
say "REPL $REPL_REV"
checkout "$REPL_URL" "$REPL_REV" "$WORKSPACE/repl"

# The REPL must be built by the toolchain Mathlib's .olean files were built with, or imports fail.
mathlib_toolchain=$(tr -d '[:space:]' < "$WORKSPACE/mathlib4/lean-toolchain")
repl_toolchain=$(tr -d '[:space:]' < "$WORKSPACE/repl/lean-toolchain")
if [ "$mathlib_toolchain" != "$repl_toolchain" ]; then
  echo "error: Mathlib uses $mathlib_toolchain but the REPL uses $repl_toolchain; pick matching MATHLIB_REV/REPL_REV" >&2
  exit 1
fi
case "$mathlib_toolchain" in
  *"$LEAN_VERSION") ;;
  *) echo "warning: LEAN_VERSION=$LEAN_VERSION but the checkouts use $mathlib_toolchain" >&2 ;;
esac
elan toolchain install "$mathlib_toolchain"

say "Mathlib build cache"
(cd "$WORKSPACE/mathlib4" && lake exe cache get && lake build)

say "REPL build"
(cd "$WORKSPACE/repl" && lake build)

say "smoke test"
reply=$(cd "$WORKSPACE/mathlib4" && printf '{"cmd": "import Mathlib\\ntheorem t : (2 : ℕ) + 2 = 4 := by norm_num"}\n\n' \
  | lake env "$WORKSPACE/repl/.lake/build/bin/repl")
echo "$reply"
case "$reply" in
  *'"env": 0'*) ;;
  *) echo "error: the REPL did not accept a simple Mathlib proof" >&2; exit 1 ;;
esac
echo "$mathlib_toolchain" > "$WORKSPACE/LEAN_VERSION"
say "workspace ready: $WORKSPACE ($mathlib_toolchain)"
