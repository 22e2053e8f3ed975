import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { cloudKittyAndRatecard, referenceCloudKitty } from "./support/cloudkitty.js";
import { seeder } from "./support/hashmap.js";
import { drift, planAndApply, registerTarget } from "./support/target-bridge.js";
import { seededRandom } from "./support/random.js";

// Prices (issue 14's tests): after Ratecard applied a random rule set to a real CloudKitty 17,
// CloudKitty's own HashMap code, run in process against that CloudKitty's SQLite database
// (support/hashmap_sqlite_oracle.py, Debian's python3-cloudkitty), prices random usage exactly as
// Ratecard's quote (POST /v1/rating/quote) does, point by point.
//
// Costs and levels are multiples of 1/64: CloudKitty on SQLite stores doubles, and those survive a
// double exactly, so every price must agree to the last digit. (Other decimals are billed by a
// SQLite CloudKitty at their double's value: drift says double_precision then.)

const cloudKitty = referenceCloudKitty({
  dir: process.env.CK_PRICES_TEST_DIR ?? "/tmp/ck-server-target-prices",
  port: Number(process.env.CK_PRICES_TEST_PORT ?? 8970),
});
const ORACLE = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "support/hashmap_sqlite_oracle.py",
);

/** n/64 as exact decimal text (a double holds it exactly). */
const sixtyFourths = (n: number) => {
  const whole = Math.floor(n / 64);
  const rest = (n % 64) / 64; // at most 6 decimals, exact in binary
  return rest === 0 ? String(whole) : (whole + rest).toFixed(6).replace(/0+$/, "");
};

interface Point {
  service: string;
  volume: string;
  metadata: Record<string, string>;
}

function oracle(points: Point[]): Promise<({ price: string } | { error: string })[]> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      "/usr/bin/python3",
      [ORACLE],
      { maxBuffer: 64 * 1024 * 1024, timeout: 120_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout));
      },
    );
    child.stdin!.end(
      JSON.stringify({ config_file: path.join(cloudKitty.dir, "cloudkitty.conf"), points }),
    );
  });
}

/** Ratecard's quote as plain decimal text without trailing zeros (the oracle's form). */
function plain(text: string): string {
  if (!/e/i.test(text)) return text.includes(".") ? text.replace(/\.?0+$/, "") : text;
  throw new Error(`the quote answered in exponent form: ${text}`);
}

describe("prices after an apply", () => {
  const ratecard = cloudKittyAndRatecard(cloudKitty, "ratecard-target-prices-");

  it("CloudKitty's HashMap on its own database prices random usage exactly as Ratecard's quote", async () => {
    const seedNumber = Number(process.env.TARGET_PRICES_SEED ?? 20261126);
    const rnd = seededRandom(seedNumber);
    const seed = seeder(ratecard.api);
    const cost = () => sixtyFourths(1 + rnd.int(64 * 8));
    const groups = [
      null,
      (await seed.group("uptime")).group_id,
      (await seed.group("disk")).group_id,
    ];
    const services = ["instance", "volume.size", "image.size"];
    const fields: Record<string, { name: string; values: string[] }[]> = {
      instance: [
        { name: "flavor_name", values: ["m1.tiny", "m1.small", "m1.large", "m1.xlarge"] },
        { name: "vcpus", values: ["1", "2", "4", "8"] },
      ],
      "volume.size": [{ name: "volume_type", values: ["ssd", "hdd", "nvme"] }],
      "image.size": [],
    };
    for (const name of services) {
      const service = await seed.service(name);
      // Mostly a flat service price without a group: a group's price is its rates times its
      // flat, so a group of rates alone prices 0.
      if (rnd.next() < 0.9)
        await seed.mapping({
          service_id: service.service_id,
          type: rnd.next() < 0.8 ? "flat" : "rate",
          cost: cost(),
          group_id: rnd.next() < 0.7 ? null : rnd.pick(groups),
        });
      const levels = new Set<number>();
      for (let i = rnd.int(3); i > 0; i--) levels.add(1 + rnd.int(20));
      for (const level of levels)
        await seed.threshold({
          service_id: service.service_id,
          level: String(level),
          type: rnd.pick(["flat", "rate"]),
          cost: cost(),
          group_id: rnd.pick(groups),
        });
      for (const f of fields[name]!) {
        const field = await seed.field(service.service_id, f.name);
        for (const value of f.values) {
          if (rnd.next() < 0.25) continue;
          await seed.mapping({
            field_id: field.field_id,
            value,
            type: rnd.pick(["flat", "rate"]),
            cost: cost(),
            group_id: rnd.pick(groups),
          });
        }
        if (f.name === "vcpus")
          await seed.threshold({
            field_id: field.field_id,
            level: "4",
            type: "rate",
            cost: sixtyFourths(32 + rnd.int(64)),
          });
      }
    }

    const id = await registerTarget(ratecard.api, cloudKitty.url);
    const { apply } = await planAndApply(ratecard.api, id);
    expect(apply.body.status, apply.text).toBe("ok");
    expect((await drift(ratecard.api, id)).differences).toEqual([]);

    const points: Point[] = [];
    for (let i = 0; i < 300; i++) {
      const service = rnd.pick([...services, "network.incoming.bytes"]);
      const metadata: Record<string, string> = {};
      for (const f of fields[service] ?? [])
        if (rnd.next() < 0.8) metadata[f.name] = rnd.pick(f.values);
      const volume = rnd.pick([
        String(rnd.int(30)),
        (rnd.int(100_000) / 1000).toString(),
        (rnd.int(1_000_000) / 7).toFixed(9),
      ]);
      points.push({ service, volume, metadata });
    }

    const expected = await oracle(points);
    const mismatches: string[] = [];
    for (const [i, point] of points.entries()) {
      const answer = await ratecard.api.post("/v1/rating/quote", {
        resources: [{ service: point.service, desc: point.metadata, volume: point.volume }],
      });
      const ck = expected[i]!;
      if ("error" in ck) {
        mismatches.push(
          `${JSON.stringify(point)}: CloudKitty raised ${ck.error}, Ratecard ${answer.status} ${answer.text}`,
        );
        continue;
      }
      expect(answer.status, answer.text).toBe(200);
      if (plain(answer.text) !== ck.price)
        mismatches.push(
          `${JSON.stringify(point)}: CloudKitty ${ck.price}, Ratecard ${answer.text}`,
        );
    }
    expect(mismatches, `seed ${seedNumber}`).toEqual([]);
    // The rules did price something: not 300 zeros (a point of an unknown service prices 0).
    expect(expected.filter((e) => "price" in e && e.price !== "0").length).toBeGreaterThan(120);
  }, 300_000);
});
