#!/usr/bin/env bash
# The system packages the tests use, from Debian: Chromium (Playwright drives Debian's build; its
# own browser download cannot be reached), CloudKitty's real client (the CLI compatibility test) and
# Python's requests (GET bodies sent as OpenStack's test clients send them); HAProxy, OpenSSL and
# the sqlite3 shell (docs/deployment.md's load balancer with a self-signed certificate, and its
# backup command); PostgreSQL (the server suite's second run, on a throwaway cluster that
# scripts/postgres-for-tests.sh starts on a free port). Keystone and Horizon come from
# scripts/openstack-for-tests.sh.
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v cloudkitty >/dev/null 2>&1 || missing+=(python3-cloudkittyclient)
[ -d /usr/lib/python3/dist-packages/requests ] || missing+=(python3-requests)
command -v haproxy >/dev/null 2>&1 || missing+=(haproxy)
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
command -v sqlite3 >/dev/null 2>&1 || missing+=(sqlite3) # the documented backup command
# Found where scripts/postgres-for-tests.sh looks for it; psql, pg_dump and pg_restore come along.
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
# The reference scripts install Keystone and Horizon themselves, but need fresh package lists.
openstack_missing=0
command -v keystone-manage >/dev/null 2>&1 || openstack_missing=1
[ -d /usr/share/openstack-dashboard ] || openstack_missing=1
[ ${#missing[@]} -eq 0 ] && [ "$openstack_missing" = 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  [ ${#missing[@]} -eq 0 ] && exit 0 # the reference scripts will say what they need
  echo "Missing system packages: ${missing[*]}. Install them (apt-get install ${missing[*]}) or run as root." >&2
  exit 1
fi
apt-get update
[ ${#missing[@]} -eq 0 ] && exit 0
if [[ " ${missing[*]} " == *" postgresql "* ]]; then
  # Debian's package creates a `main` cluster on port 5432 and starts it wherever services may
  # start (a host with systemd, a container without policy-rc.d): the tests need none, and it
  # would hold 5432 for good. postgresql-common reads this drop-in before creating it; remove the
  # file to get Debian's default back for later installs.
  mkdir -p /etc/postgresql-common/createcluster.d
  echo "create_main_cluster = false # scripts/install-system-deps.sh: tests run their own" \
    >/etc/postgresql-common/createcluster.d/ratecard-tests.conf
fi
echo "==> installing ${missing[*]}"
DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
