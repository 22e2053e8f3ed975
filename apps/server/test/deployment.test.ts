import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HASHMAP } from "./support/client.js";
import { freePort, startServer, type TestServer } from "./support/server.js";

// docs/deployment/haproxy.cfg, run as documented with local addresses: TLS ends at HAProxy, two
// Ratecard processes on one database behind it, checked on /readyz.

const SAMPLE = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../../docs/deployment/haproxy.cfg",
);

let instances: TestServer[];
let haproxy: ChildProcess;
let haproxyOutput = "";
let lbPort: number;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTPS request through the load balancer (its certificate is self-signed). */
function viaBalancer(method: string, target: string, body?: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = https.request(
      {
        host: "127.0.0.1",
        port: lbPort,
        method,
        path: target,
        rejectUnauthorized: false,
        agent: false,
        headers: payload ? { "Content-Type": "application/json" } : {},
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }),
        );
      },
    );
    req.on("error", reject);
    req.end(payload);
  });
}

/** The sample with this machine's addresses; every rewrite must apply, so the sample cannot drift. */
function renderSample(certificate: string, ports: number[]): string {
  let config = fs.readFileSync(SAMPLE, "utf8");
  const rewrite = (from: RegExp, to: string) => {
    expect(config).toMatch(from);
    config = config.replace(from, to);
  };
  rewrite(/bind :443 ssl crt \S+/, `bind 127.0.0.1:${lbPort} ssl crt ${certificate}`);
  // Checks often enough to see a stopped instance within the test, not so often that a loaded CI
  // machine's slow answers look like failures.
  rewrite(/inter 2s fall 2 rise 2/, "inter 500ms fall 2 rise 2");
  rewrite(/^ {4}server ratecard-\d .*\n/gm, "");
  config += ports
    .map((port, i) => `    server ratecard-${i + 1} 127.0.0.1:${port} check\n`)
    .join("");
  return config;
}

beforeAll(async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-haproxy-"));
  const key = path.join(dir, "key.pem");
  const cert = path.join(dir, "cert.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=rating.example.com",
      "-keyout",
      key,
      "-out",
      cert,
    ],
    { stdio: "ignore" },
  );
  const certificate = path.join(dir, "rating.example.com.pem");
  fs.writeFileSync(certificate, fs.readFileSync(cert, "utf8") + fs.readFileSync(key, "utf8"));

  const env = { TRUSTED_PROXIES: "loopback" };
  const first = await startServer({ env });
  instances = [first, await startServer({ env, databasePath: first.databasePath })];
  lbPort = await freePort();
  const config = path.join(dir, "haproxy.cfg");
  fs.writeFileSync(
    config,
    renderSample(
      certificate,
      instances.map((server) => server.port),
    ),
  );
  haproxy = spawn("haproxy", ["-db", "-f", config], { stdio: ["ignore", "pipe", "pipe"] });
  haproxy.stdout!.on("data", (chunk: Buffer) => (haproxyOutput += chunk.toString()));
  haproxy.stderr!.on("data", (chunk: Buffer) => (haproxyOutput += chunk.toString()));
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (haproxy.exitCode !== null) throw new Error(`haproxy exited:\n${haproxyOutput}`);
    try {
      if ((await viaBalancer("GET", "/healthz")).status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`haproxy did not answer:\n${haproxyOutput}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 60_000);

afterAll(async () => {
  haproxy?.kill("SIGTERM");
  await Promise.all((instances ?? []).map((server) => server.stop()));
});

const requestLines = (server: TestServer, url: string) =>
  server
    .output()
    .split("\n")
    .filter((line) => line.includes('"request completed"') && line.includes(`"url":"${url}"`))
    .length;

describe("the sample HAProxy configuration", () => {
  it("ends TLS and passes the client's scheme: Location is the https address the client used", async () => {
    const made = await viaBalancer("POST", `${HASHMAP}/services`, { name: "balanced" });
    expect(made.status).toBe(201);
    const { service_id: id } = JSON.parse(made.body) as { service_id: string };
    expect(made.headers.location).toBe(`https://127.0.0.1:${lbPort}${HASHMAP}/services/${id}`);
  });

  it("spreads requests over the instances, and each reads what the other wrote", async () => {
    const url = `${HASHMAP}/services`;
    for (let i = 0; i < 10; i++) {
      const answer = await viaBalancer("GET", url);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ services: [{ name: "balanced" }] });
    }
    for (const server of instances) expect(requestLines(server, url)).toBeGreaterThan(0);
  });

  it("keeps answering while an instance stops, then sends everything to the other", async () => {
    const [kept, stopped] = instances as [TestServer, TestServer];
    const stopping = stopped.stop();
    const statuses: number[] = [];
    const until = Date.now() + 2_000;
    while (Date.now() < until)
      statuses.push((await viaBalancer("GET", `${HASHMAP}/services`)).status);
    expect(await stopping).toBe(0);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    const before = requestLines(kept, `${HASHMAP}/groups`);
    for (let i = 0; i < 4; i++)
      expect((await viaBalancer("GET", `${HASHMAP}/groups`)).status).toBe(200);
    // The access log is written asynchronously: give its last line a moment.
    await expect
      .poll(() => requestLines(kept, `${HASHMAP}/groups`), { timeout: 2_000 })
      .toBe(before + 4);
  });
});
