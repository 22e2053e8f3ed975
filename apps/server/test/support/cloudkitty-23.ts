import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import type { ReferenceCloudKitty } from "./cloudkitty.js";

// A CloudKitty 23 or later (API generation 23+), run from a source tree the caller points at with
// CLOUDKITTY_23_SRC (e.g. `git archive` of openstack/cloudkitty master), with the system python3
// and Debian's libraries of its CloudKitty 17 (python3-cloudkitty and its dependencies), noauth,
// SQLite, under uWSGI as ../shared/reference/cloudkitty/start.sh runs 17. Nothing of CloudKitty is
// in this repository; this only starts the tree it is given, in a directory of the caller's own.
//
// What it takes beyond 17's setup, each written into that directory:
// - two import shims: CloudKitty master's config module imports influxdb_client and
//   observabilityclient (its InfluxDB v2 storage and Aetos collector), which Debian does not ship
//   and which this API never uses;
// - api_wsgi.py: master's get_request_user() reads [keystone_authtoken] even in noauth, whose
//   options only keystonemiddleware registers (without it every rule write answers 500 "no such
//   option keystone_authtoken in group [DEFAULT]");
// - dbsync.py: master's hashmap migration 8a591f85865f alters hashmap_mappings on alembic's
//   connection and then reads it through another session, which on SQLite does not see the
//   uncommitted ALTER ("no such column: hashmap_mappings.created_at"); inside a migration the
//   session is made on alembic's own connection.

const run = promisify(execFile);
const PYTHON = "/usr/bin/python3";

export const CLOUDKITTY_23_SRC = process.env.CLOUDKITTY_23_SRC ?? "";

const SHIMS: Record<string, string> = {
  "influxdb_client/__init__.py":
    "# Import shim (not in Debian): the InfluxDB v2 storage is not used here.\n" +
    "class InfluxDBClient:\n    def __init__(self, *a, **k):\n        raise RuntimeError('influxdb_client is a shim')\n",
  "influxdb_client/client/__init__.py": "",
  "influxdb_client/client/write_api.py": "SYNCHRONOUS = None\n",
  "observabilityclient/__init__.py":
    "# Import shim (not in Debian): the Aetos collector is not used here.\n",
  "observabilityclient/prometheus_client.py":
    "class PrometheusAPIClientError(Exception):\n    pass\n",
  "observabilityclient/utils/__init__.py": "",
  "observabilityclient/utils/metric_utils.py":
    "def get_prom_client_from_keystone(*a, **k):\n    raise RuntimeError('observabilityclient is a shim')\n",
};

const API_WSGI = `import keystonemiddleware.auth_token  # noqa: F401  (registers [keystone_authtoken])
from cloudkitty.wsgi.api import application  # noqa: F401
`;

const DBSYNC = `import contextlib
import sys

from cloudkitty import db

_orig = db.session_for_write


@contextlib.contextmanager
def _session_for_write():
    try:
        from alembic import op
        bind = op.get_bind()
    except Exception:
        bind = None
    if bind is None:
        with _orig() as session:
            yield session
        return
    from sqlalchemy.orm import Session
    session = Session(bind=bind)
    yield session
    session.flush()


db.session_for_write = _session_for_write
from cloudkitty.cli.dbsync import main  # noqa: E402
sys.argv = ["cloudkitty-dbsync"] + sys.argv[1:]
main()
`;

export function cloudKitty23(options: { dir: string; port: number }): ReferenceCloudKitty {
  const { dir, port } = options;
  const url = `http://127.0.0.1:${port}`;
  const src = CLOUDKITTY_23_SRC;
  const shims = path.join(dir, "shims");
  const pidFile = path.join(dir, "api.pid");
  const conf = path.join(dir, "cloudkitty.conf");
  const env = { ...process.env, PYTHONPATH: `${src}:${shims}` };

  const running = (): number | undefined => {
    try {
      const pid = Number(fs.readFileSync(pidFile, "utf8").trim());
      process.kill(pid, 0);
      return pid;
    } catch {
      return undefined;
    }
  };

  async function stop() {
    const pid = running();
    if (pid === undefined) return;
    process.kill(pid, "SIGTERM");
    for (let i = 0; i < 100 && running() !== undefined; i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
  }

  async function up(): Promise<boolean> {
    try {
      const response = await fetch(`${url}/v1/rating/modules`);
      return response.ok;
    } catch {
      return false;
    }
  }

  return {
    url,
    dir,
    async start() {
      if (!src || !fs.existsSync(path.join(src, "cloudkitty", "rating", "common")))
        throw new Error(`CLOUDKITTY_23_SRC (${src || "unset"}) is not a CloudKitty 23+ tree`);
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(path.join(dir, "lock"), { recursive: true });
      for (const [file, text] of Object.entries(SHIMS)) {
        fs.mkdirSync(path.dirname(path.join(shims, file)), { recursive: true });
        fs.writeFileSync(path.join(shims, file), text);
      }
      fs.writeFileSync(path.join(dir, "api_wsgi.py"), API_WSGI);
      fs.writeFileSync(path.join(dir, "dbsync.py"), DBSYNC);
      fs.writeFileSync(
        conf,
        [
          "[DEFAULT]",
          "auth_strategy = noauth",
          `api_paste_config = ${path.join(src, "etc/cloudkitty/api_paste.ini")}`,
          "transport_url = fake://",
          "debug = false",
          "use_stderr = true",
          "[api]",
          "host_ip = 127.0.0.1",
          `port = ${port}`,
          "[database]",
          `connection = sqlite:///${path.join(dir, "cloudkitty.sqlite")}`,
          "[storage]",
          "version = 1",
          "backend = sqlalchemy",
          "[collect]",
          `metrics_conf = ${path.join(src, "etc/cloudkitty/metrics.yml")}`,
          "[fetcher]",
          "backend = source",
          "[oslo_concurrency]",
          `lock_path = ${path.join(dir, "lock")}`,
          "[oslo_policy]",
          "policy_dirs = /etc/cloudkitty/policy.d",
          "",
        ].join("\n"),
      );
      fs.writeFileSync(
        path.join(dir, "uwsgi.ini"),
        [
          "[uwsgi]",
          "plugins = python3",
          `http-socket = 127.0.0.1:${port}`,
          "master = true",
          "processes = 1",
          "threads = 1",
          "enable-threads = true",
          "lazy-apps = true",
          "die-on-term = true",
          "no-orphans = true",
          "buffer-size = 65535",
          "add-header = Connection: close",
          `chdir = ${dir}`,
          `pythonpath = ${src}`,
          `pythonpath = ${shims}`,
          `wsgi-file = ${path.join(dir, "api_wsgi.py")}`,
          `pyargv = --config-file ${conf}`,
          `pidfile = ${pidFile}`,
          "",
        ].join("\n"),
      );
      await run(PYTHON, [path.join(dir, "dbsync.py"), "--config-file", conf, "upgrade"], {
        env,
        cwd: dir,
        timeout: 180_000,
      });
      await run(
        PYTHON,
        [
          "-c",
          "import sys; from cloudkitty.cli.storage import main; sys.argv[0] = 'cloudkitty-storage-init'; main()",
          "--config-file",
          conf,
        ],
        { env, cwd: dir, timeout: 180_000 },
      );
      const log = fs.openSync(path.join(dir, "api.log"), "a");
      const child = spawn("uwsgi_python3", ["--ini", path.join(dir, "uwsgi.ini")], {
        cwd: dir,
        detached: true,
        stdio: ["ignore", log, log],
      });
      child.unref();
      for (let i = 0; i < 240 && !(await up()); i++)
        await new Promise((resolve) => setTimeout(resolve, 250));
      if (!(await up()))
        throw new Error(
          `CloudKitty 23+ did not come up on ${url}:\n${fs.readFileSync(path.join(dir, "api.log"), "utf8").slice(-3000)}`,
        );
      for (const module of ["hashmap", "pyscripts"]) {
        await fetch(`${url}/v1/rating/modules/${module}`, {
          method: "PUT",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({ module_id: module, enabled: true }),
          redirect: "manual",
        });
      }
    },
    stop,
    async cli(...args) {
      const { stdout } = await run(
        "cloudkitty",
        ["--os-auth-type", "cloudkitty-noauth", "--os-endpoint", url, ...args, "-f", "json"],
        { timeout: 60_000 },
      );
      return (JSON.parse(stdout) as Record<string, string>[])[0]!;
    },
  };
}
