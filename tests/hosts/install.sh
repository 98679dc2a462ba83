#!/usr/bin/env bash
# Installs the Claude Code, Gemini CLI, Codex CLI and Copilot CLI versions pinned in
# tests/hosts/versions.env into target/hosts (outside git) for tests/hosts_e2e.rs. Does nothing
# when all are there at the pinned versions already.
#
# Needs Node.js 20 or newer with npm (Gemini CLI's `engines`). Claude Code's npm package is a
# native binary: Node.js only runs its postinstall step, which puts the binary in place. Codex's
# and Copilot CLI's npm packages are launchers of their native binaries (an optional dependency
# per platform).
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
# shellcheck source=versions.env
. "$root/tests/hosts/versions.env"
prefix="$root/target/hosts"
bin="$prefix/node_modules/.bin"

# The version a CLI reports (the first word of `--version` that starts with a digit:
# `2.1.332 (Claude Code)`, `codex-cli 0.171.0`), or nothing. Run with a HOME of its own so that
# nothing is written into the user's settings.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
version_of() {
  [ -x "$bin/$1" ] || return 0
  HOME="$scratch" GEMINI_CLI_NO_RELAUNCH=true timeout 60 "$bin/$1" --version 2>/dev/null \
    | head -n 1 | tr ' ' '\n' | grep -m 1 '^[0-9]' | sed 's/\.$//' || true
}

if [ "$(version_of claude)" = "$CLAUDE_CODE_VERSION" ] \
  && [ "$(version_of gemini)" = "$GEMINI_CLI_VERSION" ] \
  && [ "$(version_of codex)" = "$CODEX_VERSION" ] \
  && [ "$(version_of copilot)" = "$COPILOT_VERSION" ]; then
  echo "host CLIs already installed in $prefix: Claude Code $CLAUDE_CODE_VERSION, Gemini CLI $GEMINI_CLI_VERSION, Codex CLI $CODEX_VERSION, Copilot CLI $COPILOT_VERSION"
  exit 0
fi

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "error: node and npm are needed to install the host CLIs (Node.js 20 or newer)" >&2
  exit 1
fi
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 20 ]; then
  echo "error: Node.js $(node --version) is too old: Gemini CLI $GEMINI_CLI_VERSION needs 20 or newer" >&2
  exit 1
fi

echo "== installing Claude Code $CLAUDE_CODE_VERSION, Gemini CLI $GEMINI_CLI_VERSION, Codex CLI $CODEX_VERSION and Copilot CLI $COPILOT_VERSION into $prefix"
mkdir -p "$prefix"
npm install --prefix "$prefix" --save-exact --no-audit --no-fund --loglevel=error \
  "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" "@google/gemini-cli@$GEMINI_CLI_VERSION" \
  "@openai/codex@$CODEX_VERSION" "@github/copilot@$COPILOT_VERSION"

# When npm did not run Claude Code's postinstall step (install scripts switched off), `claude`
# is still the placeholder: run the step by hand.
if [ "$(version_of claude)" != "$CLAUDE_CODE_VERSION" ]; then
  (cd "$prefix/node_modules/@anthropic-ai/claude-code" && node install.cjs)
fi

got_claude="$(version_of claude)"
got_gemini="$(version_of gemini)"
got_codex="$(version_of codex)"
got_copilot="$(version_of copilot)"
if [ "$got_claude" != "$CLAUDE_CODE_VERSION" ] || [ "$got_gemini" != "$GEMINI_CLI_VERSION" ] \
  || [ "$got_codex" != "$CODEX_VERSION" ] || [ "$got_copilot" != "$COPILOT_VERSION" ]; then
  echo "error: after the install, claude reports '${got_claude}' (want $CLAUDE_CODE_VERSION), gemini '${got_gemini}' (want $GEMINI_CLI_VERSION), codex '${got_codex}' (want $CODEX_VERSION) and copilot '${got_copilot}' (want $COPILOT_VERSION)" >&2
  exit 1
fi
echo "installed: Claude Code $got_claude, Gemini CLI $got_gemini, Codex CLI $got_codex, Copilot CLI $got_copilot"
