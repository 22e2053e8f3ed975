#!/usr/bin/env bash
# The system packages the tests use, from Debian: Chromium (Playwright drives Debian's build; its
# own browser download cannot be reached) and CloudKitty's real client (the CLI compatibility test).
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v cloudkitty >/dev/null 2>&1 || missing+=(python3-cloudkittyclient)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "Missing system packages: ${missing[*]}. Install them (apt-get install ${missing[*]}) or run as root." >&2
  exit 1
fi
echo "==> installing ${missing[*]}"
apt-get update
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
