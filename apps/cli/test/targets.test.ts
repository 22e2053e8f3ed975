import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// The server's own harnesses: the built server on a free port with a fresh SQLite database, and
// the real CloudKitty 17 of ../shared/reference/cloudkitty (noauth) with the real `cloudkitty` CLI.
import { referenceCloudKitty } from "../../server/test/support/cloudkitty.js";
import { startServer, type TestServer } from "../../server/test/support/server.js";

// `ratecard targets ...` as a user runs it (the built dist/main.js in its own process) against a
// real Ratecard and a real CloudKitty 17 seeded with CloudKitty's own CLI.

const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../dist/main.js");

const cloudKitty = referenceCloudKitty({
  dir: process.env.CK_CLI_TEST_DIR ?? "/tmp/ck-engD",
  port: Number(process.env.CK_CLI_TEST_PORT ?? 8980),
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function ratecard(args: string[], env: Record<string, string>): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      {
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
        timeout: 120_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end("");
  });
}

const TARGETS = "/v1/ratecard/targets";
const HASHMAP = "/v1/rating/module_config/hashmap";

describe("ratecard targets (noauth Ratecard, CloudKitty 17)", () => {
  let server: TestServer;
  let env: Record<string, string>;
  let targetId: string;
  const ck: Record<string, string> = {};

  async function call(method: string, url: string, body?: unknown) {
    const response = await fetch(new URL(url, server.baseUrl), {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, text, body: text ? JSON.parse(text) : null };
  }

  beforeAll(async () => {
    await cloudKitty.start();
    server = await startServer({
      env: { DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-cli-targets-")) },
    });
    env = { RATECARD_URL: server.baseUrl };
    const cli = cloudKitty.cli;
    ck.service = (await cli("hashmap", "service", "create", "volume.size"))["Service ID"]!;
    ck.field = (await cli("hashmap", "field", "create", ck.service, "volume_type"))["Field ID"]!;
    ck.small = (
      await cli("hashmap", "mapping", "create", "--field-id", ck.field, "--value", "ssd", "0.5")
    )["Mapping ID"]!;
    ck.threshold = (await cli("hashmap", "threshold", "create", "-s", ck.service, "10", "0.25"))[
      "Threshold ID"
    ]!;
    const target = await call("POST", TARGETS, {
      name: "local",
      mode: "managed",
      connection: { kind: "noauth", url: cloudKitty.url },
    });
    expect(target.status, target.text).toBe(201);
    targetId = target.body.target_id;
  }, 16 * 60_000);
  afterAll(async () => {
    await server?.stop();
    await cloudKitty.stop();
  }, 120_000);

  it("lists and shows targets by name or id; an unknown one is an error (exit 1)", async () => {
    const list = await ratecard(["targets", "list"], env);
    expect(list.stderr).toBe("");
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^NAME +ID +MODE +GENERATION +LAST IMPORT +CLOUDKITTY\n/);
    expect(list.stdout).toContain(`local  ${targetId}  managed  -`);
    expect(list.stdout).toContain(cloudKitty.url);

    for (const ref of ["local", targetId.toUpperCase()]) {
      const show = await ratecard(["targets", "show", ref], env);
      expect(show.code, show.stderr).toBe(0);
      expect(show.stdout).toContain(`name:         local\nid:           ${targetId}\n`);
      expect(show.stdout).toContain(`connection:   noauth ${cloudKitty.url}\n`);
      expect(show.stdout).toContain("last import:  never\n");
    }
    const json = await ratecard(["targets", "show", "local", "--json"], env);
    expect(JSON.parse(json.stdout)).toMatchObject({ target_id: targetId, mode: "managed" });

    const unknown = await ratecard(["targets", "show", "nosuch"], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      'ratecard: No CloudKitty target with the id or name "nosuch" (targets: local)\n',
    );
  });

  it("probes: reachable, noauth, CloudKitty before 23, the modules", async () => {
    const run = await ratecard(["targets", "probe", "local"], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^reachable: {2}yes\nauth: {7}noauth\ngeneration: pre-23/);
    expect(run.stdout).toMatch(/modules: +.*hashmap enabled/);
  });

  it("imports with CloudKitty's ids; the next plan is empty (exit 0)", async () => {
    const run = await ratecard(["targets", "import", "local"], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Imported: .*1 mappings, 1 thresholds.*; revision \d+ -> \d+\.\n/);
    const mapping = await call("GET", `${HASHMAP}/mappings/${ck.small}`);
    expect(mapping.body).toMatchObject({ mapping_id: ck.small });
    expect(Number(mapping.body.cost)).toBe(0.5);

    // Importing again into a Ratecard that has rules is refused without --merge.
    const again = await ratecard(["targets", "import", targetId], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^ratecard: Ratecard answered 409: Ratecard already has rules/);
    const merged = await ratecard(["targets", "import", "local", "--merge"], env);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toMatch(/^Imported \(merge\): /);

    const plan = await ratecard(["targets", "plan", "local"], env);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(
      /^Plan [0-9a-f-]{36} for local \(CloudKitty pre-23\) against Ratecard revision \d+: no changes\.\n/,
    );
  });

  it("plans Ratecard's changes as a readable diff (exit 2)", async () => {
    const changed = await call("PUT", `${HASHMAP}/mappings/${ck.small}`, {
      mapping_id: ck.small,
      field_id: ck.field,
      value: "ssd",
      type: "flat",
      cost: "0.75",
    });
    expect(changed.status, changed.text).toBeLessThan(300);
    const created = await call("POST", `${HASHMAP}/mappings`, {
      field_id: ck.field,
      value: "hdd",
      type: "rate",
      cost: "2",
    });
    expect(created.status, created.text).toBe(201);

    const run = await ratecard(["targets", "plan", "local"], env);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(2);
    expect(run.stdout).toMatch(/against Ratecard revision \d+: 1 create, 1 update\.\n\n/);
    expect(run.stdout).toContain("  ~ update    mapping volume.size/volume_type/mappings/ssd\n");
    expect(run.stdout).toContain('        cost: "0.5" -> "0.75"\n');
    expect(run.stdout).toMatch(
      / {2}\+ create +mapping volume.size\/volume_type\/mappings\/hdd \(.*cost 2/,
    );

    const json = await ratecard(["targets", "plan", "local", "--json"], env);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ target_id: targetId, counts: { update: 1 } });
  });

  it("apply: refuses without a terminal or --yes; with --yes carries out the plan shown", async () => {
    const refused = await ratecard(["targets", "apply", "local"], env);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('        cost: "0.5" -> "0.75"\n');
    expect(refused.stderr).toBe(
      "ratecard: Not applied: standard input is not a terminal to confirm on; pass --yes to apply.\n",
    );
    const inCloudKitty = async (id: string) => {
      const response = await fetch(`${cloudKitty.url}${HASHMAP}/mappings/${id}`);
      return (await response.json()) as { cost: string };
    };
    expect(Number((await inCloudKitty(ck.small!)).cost)).toBe(0.5);

    // On a terminal (util-linux's script(1) gives it one, fed from our standard input) it asks,
    // saying that CloudKitty's side is not atomic; "n" leaves CloudKitty as it is.
    const declined = await new Promise<Run>((resolve) => {
      const command = [process.execPath, CLI, "targets", "apply", "local"]
        .map((part) => `'${part}'`)
        .join(" ");
      const child = execFile(
        "script",
        ["-qec", command, "/dev/null"],
        { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, timeout: 60_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      );
      child.stdin?.end("n\n");
    });
    expect(declined.stdout).toContain(
      "Apply these 2 changes to local? CloudKitty applies them one by one: a failure stops midway without rolling back. [y/N] ",
    );
    expect(declined.stdout).toContain("Not applied.");
    expect(declined.code).toBe(1);
    expect(Number((await inCloudKitty(ck.small!)).cost)).toBe(0.5);

    const run = await ratecard(["targets", "apply", "local", "--yes"], env);
    expect(run.stderr).toBe("");
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toMatch(/\nApply [0-9a-f-]{36} \(plan [0-9a-f-]{36}\): ok, 2 done\.\n$/);
    expect(run.stdout).toMatch(
      / {2}done +update mapping volume.size\/volume_type\/mappings\/ssd \[\d{3}/,
    );
    expect(Number((await inCloudKitty(ck.small!)).cost)).toBe(0.75);

    const plan = await ratecard(["targets", "plan", "local"], env);
    expect(plan.code, plan.stdout).toBe(0);
    const nothing = await ratecard(["targets", "apply", "local"], env);
    expect(nothing.code).toBe(0);
    expect(nothing.stdout).toMatch(/: no changes\.\n/);
    expect(nothing.stdout).not.toContain("Apply ");
  });

  it("runs: the import, plan and apply runs, newest first", async () => {
    const run = await ratecard(["targets", "runs", "local"], env);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^STARTED +KIND +STATUS +ACTOR +REVISION +OPS +RUN/);
    const kinds = lines.slice(1).map((line) => line.split(/ +/)[1]);
    expect(kinds.slice(0, 5)).toEqual(["plan", "plan", "apply", "plan", "plan"]);
    expect(kinds.at(-1)).toBe("import");
    const limited = await ratecard(["targets", "runs", "local", "--limit", "1", "--json"], env);
    expect(JSON.parse(limited.stdout).runs).toHaveLength(1);
    const bad = await ratecard(["targets", "runs", "local", "--limit", "x"], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe("ratecard: --limit: not a positive integer: x\n");
  });
  it("drift: none after the apply (exit 0); an out-of-band change names the object and both values (exit 2)", async () => {
    const none = await ratecard(["targets", "drift", "local"], env);
    expect(none.stderr).toBe("");
    expect(none.code, none.stdout).toBe(0);
    expect(none.stdout).toMatch(
      /^No drift on local \(last apply [0-9a-f-]{36} at \S+ by noauth \(Ratecard revision \d+\)/,
    );

    // Changed with CloudKitty's own CLI, behind Ratecard's back.
    await cloudKitty
      .cli("hashmap", "mapping", "update", "--cost", "0.9", ck.small!)
      .catch(() => ({}));
    const drift = await ratecard(["targets", "drift", "local"], env);
    expect(drift.stderr).toBe("");
    expect(drift.code, drift.stdout).toBe(2);
    expect(drift.stdout).toMatch(/^Drift on local: \d+ differences? /);
    expect(drift.stdout).toMatch(
      /changed +mapping volume.size\/volume_type\/mappings\/ssd cost: expected "0.75", CloudKitty has "0.9\d*" \[against last_apply\]/,
    );
    const json = await ratecard(["targets", "drift", targetId, "--json"], env);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout).differences.length).toBeGreaterThan(0);
  });
});
