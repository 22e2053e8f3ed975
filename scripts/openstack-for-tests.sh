#!/usr/bin/env bash
# The OpenStack control plane the Keystone tests run against: a real Keystone (and, when asked,
# Horizon with the CloudKitty dashboard) from ../shared/reference/openstack/, installed from
# Debian's packages and run on loopback. Idempotent: what already runs is only re-checked.
#
#   scripts/openstack-for-tests.sh [--horizon] [RATING_URL]
#
#   --horizon    also start Horizon (http://127.0.0.1:8898; ~80 s to install the first time)
#   RATING_URL   seed Keystone (roles, projects, the users rating-admin, demo-member,
#                demo-reader and the service user ratecard, password "secret") and point the
#                catalog's "rating" endpoints at this Ratecard, e.g. http://127.0.0.1:8889
#
# Keystone has one catalog: whoever seeds last decides where the CLI and Horizon go, so the tests
# that seed take a lock (OPENSTACK_LOCK) for as long as they depend on it; see
# apps/server/test/support/openstack.ts.
#
# Env: OPENSTACK_REFERENCE_DIR (default ../shared/reference/openstack from the repository root),
# and the reference scripts' own knobs (KS_PORT, KS_DIR, HZ_PORT, HZ_DIR, SEED_PASSWORD).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
reference="${OPENSTACK_REFERENCE_DIR:-$root/../shared/reference/openstack}"

horizon=0
rating_url=""
for arg in "$@"; do
  case "$arg" in
    --horizon) horizon=1 ;;
    -h | --help)
      sed -n '2,18p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    -*)
      echo "openstack-for-tests.sh: unknown option $arg" >&2
      exit 2
      ;;
    *) rating_url="$arg" ;;
  esac
done

if [ ! -x "$reference/keystone-start.sh" ]; then
  echo "openstack-for-tests.sh: no OpenStack reference scripts in $reference (clone shared/ beside the repository or set OPENSTACK_REFERENCE_DIR)" >&2
  exit 1
fi

# Two test files starting Keystone at once would both install and bootstrap it: one at a time.
mkdir -p /tmp/ratecard-openstack
exec 9>/tmp/ratecard-openstack/start.lock
flock 9

# 9>&-: the daemons these start must not inherit (and so hold) the lock
"$reference/keystone-start.sh" 9>&-
if [ "$horizon" = 1 ]; then "$reference/horizon-start.sh" 9>&-; fi
if [ -n "$rating_url" ]; then "$reference/keystone-seed.sh" "$rating_url" 9>&-; fi
