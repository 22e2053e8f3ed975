import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The server's own test harness: the built server (apps/server/dist) on a free port with a fresh
// SQLite database.
import { startServer, type TestServer } from "../../server/test/support/server.js";

// The `ratecard` command as a user runs it (the built dist/main.js in its own process) against a
// real Ratecard server: export, plan's exit codes 0/2/1 and its text, apply with and without
// confirmation, faults shown by their faultstring.

const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/main.js");

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function ratecard(args: string[], env: Record<string, string> = {}, input?: string): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
        timeout: 60_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end(input ?? "");
  });
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-cli-"));
const file = (name: string, text: string) => {
  const target = path.join(dir, name);
  fs.writeFileSync(target, text);
  return target;
};

const ids = {
  compute: randomUUID(),
  flavor: randomUUID(),
  small: randomUUID(),
  group: randomUUID(),
  volume: randomUUID(),
  perGb: randomUUID(),
};

/** A hand-written YAML rule set, as a team would keep it in git. */
const RULES = `format: ratecard.ruleset
version: 1
groups:
  - id: ${ids.group}
    name: instance_uptime
services:
  - id: ${ids.compute}
    name: compute
    fields:
      - id: ${ids.flavor}
        name: flavor
        mappings:
          - id: ${ids.small}
            value: m1.small
            type: flat
            cost: "0.0125"
            group_id: ${ids.group}
  - id: ${ids.volume}
    name: volume.size
    mappings:
      - id: ${ids.perGb}
        type: rate
        cost: "0.001"
`;

describe("ratecard CLI (noauth server)", () => {
  let server: TestServer;
  let env: Record<string, string>;

  beforeAll(async () => {
    server = await startServer();
    env = { RATECARD_URL: server.baseUrl };
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("plans a file against an empty Ratecard: the operations, exit 2", async () => {
    const run = await ratecard(["plan", file("rules.yaml", RULES)], env);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(
      /^Plan against revision \d+: 6 to create, 0 to update, 0 to delete\.\n/,
    );
    expect(run.stdout).toContain("  + create group   groups/instance_uptime\n");
    expect(run.stdout).toContain("  + create service services/compute\n");
    expect(run.stdout).toContain(
      `  + create mapping services/compute/fields/flavor/mappings/${ids.small} (value "m1.small", flat 0.0125, group ${ids.group})\n`,
    );
    expect(run.stdout).toContain(
      `services/volume.size/mappings/${ids.perGb} (service mapping, rate 0.001)\n`,
    );
  });

  it("refuses to apply without confirmation when not on a terminal, and changes nothing", async () => {
    const before = await fetch(`${server.baseUrl}/v1/ratecard/ruleset`).then((r) => r.text());
    const run = await ratecard(["apply", path.join(dir, "rules.yaml")], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("Not applied: standard input is not a terminal");
    expect(await fetch(`${server.baseUrl}/v1/ratecard/ruleset`).then((r) => r.text())).toBe(before);
  });

  it("applies with --yes, keeping the file's ids; then plan is empty (exit 0)", async () => {
    const run = await ratecard(["apply", "--yes", path.join(dir, "rules.yaml")], env);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /Applied: 6 created, 0 updated, 0 deleted; revision \d+ -> \d+\.\n$/,
    );
    const mapping = await fetch(
      `${server.baseUrl}/v1/rating/module_config/hashmap/mappings/${ids.small}`,
    ).then((r) => r.json());
    expect(mapping).toMatchObject({ mapping_id: ids.small, value: "m1.small" });

    const again = await ratecard(["plan", path.join(dir, "rules.yaml")], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(
      /^No changes: Ratecard's rule set \(revision \d+\) is the document\.\n$/,
    );
  });

  it("exports JSON to stdout and YAML to a file, each planning nothing", async () => {
    const json = await ratecard(["export"], env);
    expect(json.code).toBe(0);
    expect(json.stdout).toBe(
      await fetch(`${server.baseUrl}/v1/ratecard/ruleset`).then((r) => r.text()),
    );
    const target = path.join(dir, "exported.yaml");
    const yaml = await ratecard(["export", "-o", target], env);
    expect(yaml.code).toBe(0);
    expect(fs.readFileSync(target, "utf8")).toMatch(/^format: ratecard\.ruleset\nversion: 2\n/);
    expect((await ratecard(["plan", target], env)).code).toBe(0);
    expect((await ratecard(["plan", file("exported.json", json.stdout)], env)).code).toBe(0);
  });

  it("shows an update with before -> after, and applies it", async () => {
    const edited = file("edited.yaml", RULES.replace('cost: "0.0125"', 'cost: "0.02"'));
    const plan = await ratecard(["plan", edited], env);
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain(
      `  ~ update mapping services/compute/fields/flavor/mappings/${ids.small}\n        cost: "0.0125" -> "0.02"\n`,
    );
    const applied = await ratecard(["apply", "-y", edited], env);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain("Applied: 0 created, 1 updated, 0 deleted");
  });

  it("shows the lifecycle of a version-2 file: an end set, a scheduled rule created", async () => {
    const later = randomUUID();
    const v2 = RULES.replace("version: 1", "version: 2")
      .replace('cost: "0.0125"', 'cost: "0.02"\n            end: 2030-12-31')
      .replace(
        'cost: "0.001"\n',
        `cost: "0.001"\n      - id: ${later}\n        type: flat\n        cost: "5"\n        tenant_id: t1\n        start: 2031-01-01\n        name: from-2031\n`,
      );
    const plan = await ratecard(["plan", file("lifecycle.yaml", v2)], env);
    expect(plan.stderr).toBe("");
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('        end: null -> "2030-12-31T23:59:59"\n');
    expect(plan.stdout).toContain(
      `services/volume.size/mappings/${later} (service mapping, flat 5, tenant "t1", starts 2031-01-01T00:00:00)\n`,
    );
  });

  it("asks on a terminal before applying: n leaves everything, y applies", async () => {
    // util-linux's script(1) gives the command a pseudo-terminal, fed from our standard input.
    const onTerminal = (answer: string) =>
      new Promise<Run>((resolve) => {
        const command = [process.execPath, CLI, "apply", path.join(dir, "terminal.yaml")]
          .map((part) => `'${part}'`)
          .join(" ");
        const child = execFile(
          "script",
          ["-qec", command, "/dev/null"],
          { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, timeout: 60_000 },
          (error, stdout, stderr) =>
            resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
        );
        child.stdin?.end(answer);
      });
    file("terminal.yaml", RULES.replace('cost: "0.0125"', 'cost: "0.03"'));
    const before = await fetch(`${server.baseUrl}/v1/ratecard/ruleset`).then((r) => r.text());
    const declined = await onTerminal("n\n");
    expect(declined.stdout).toContain(`Apply this change to ${server.baseUrl}? [y/N] `);
    expect(declined.stdout).toContain("Not applied.");
    expect(declined.code).toBe(1);
    expect(await fetch(`${server.baseUrl}/v1/ratecard/ruleset`).then((r) => r.text())).toBe(before);
    const accepted = await onTerminal("y\n");
    expect(accepted.code, accepted.stdout).toBe(0);
    expect(accepted.stdout).toContain("Applied: 0 created, 1 updated, 0 deleted");
  });

  it("exits 1 with every error's path for a malformed file, and on a server it cannot reach", async () => {
    const broken = file(
      "broken.yaml",
      RULES.replace('cost: "0.0125"', "cost: 0.0125").replace("type: rate", "type: hourly"),
    );
    const run = await ratecard(["plan", broken], env);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("not a valid rule set (2 errors):");
    expect(run.stderr).toContain("services[0].fields[0].mappings[0].cost: not a decimal string");
    expect(run.stderr).toContain('services[1].mappings[0].type: must be "flat" or "rate"');

    const missing = await ratecard(["plan", path.join(dir, "nothing.yaml")], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^ratecard: Cannot read .*nothing\.yaml: ENOENT/);

    const unreachable = await ratecard(["export"], { RATECARD_URL: "http://127.0.0.1:9" });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(
      /^ratecard: Cannot reach Ratecard at http:\/\/127\.0\.0\.1:9: /,
    );

    const noUrl = await ratecard(["export"], {});
    expect(noUrl.code).toBe(1);
    expect(noUrl.stderr).toContain("No Ratecard URL: set RATECARD_URL or pass --url");

    const unknown = await ratecard(["frobnicate"], env);
    expect(unknown.code).toBe(1);
  });
});

describe("ratecard CLI with tokens (local accounts)", () => {
  const ADMIN_PASSWORD = "correct horse battery staple";
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({
      env: { AUTH_STRATEGY: "local", RATECARD_ADMIN_PASSWORD: ADMIN_PASSWORD },
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** Signs in as the console does and returns an RPC caller with that session. */
  async function signIn(username: string, password: string) {
    const login = await fetch(`${server.baseUrl}/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username, password }),
    });
    expect(login.status).toBe(200);
    const session = (await login.json()) as { csrfToken: string };
    const cookie = /ratecard_session=[^;]+/.exec(login.headers.get("set-cookie") ?? "")![0];
    return async (procedure: string, input: unknown) => {
      const answer = await fetch(`${server.baseUrl}/trpc/${procedure}`, {
        method: "POST",
        headers: { "Content-Type": "application/json", cookie, "x-csrf-token": session.csrfToken },
        body: JSON.stringify(input),
      });
      expect(answer.status).toBe(200);
      return ((await answer.json()) as { result: { data: any } }).result.data;
    };
  }
  const newToken = async (rpc: Awaited<ReturnType<typeof signIn>>) =>
    (await rpc("accounts.tokens.create", { name: "ci", expiresInDays: 1 })).secret as string;

  it("needs a token; a reader's plans (exit 2) but cannot apply (the 403's faultstring); an admin's applies", async () => {
    const rules = path.join(dir, "rules.yaml");
    const anonymous = await ratecard(["plan", rules], { RATECARD_URL: server.baseUrl });
    expect(anonymous.code).toBe(1);
    expect(anonymous.stderr).toMatch(
      /^ratecard: Ratecard answered 401: .*set RATECARD_TOKEN or pass --token/,
    );

    const admin = await signIn("admin", ADMIN_PASSWORD);
    await admin("accounts.users.create", {
      name: "viewer",
      role: "reader",
      password: "reader password 123",
    });
    const adminToken = await newToken(admin);
    const readerToken = await newToken(await signIn("viewer", "reader password 123"));
    // As a CI job would: the reader's token in the environment, the admin's on the command line.
    const asReader = { RATECARD_URL: server.baseUrl, RATECARD_TOKEN: readerToken };
    expect((await ratecard(["plan", rules], asReader)).code).toBe(2);
    const refused = await ratecard(["apply", "--yes", rules], asReader);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^ratecard: Ratecard answered 403: .*ratecard:apply_ruleset/);

    const applied = await ratecard(["--token", adminToken, "apply", "--yes", rules], asReader);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain("Applied: 6 created");
  });
});
