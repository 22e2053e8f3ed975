import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, readConfig } from "../src/config.js";
import { loadTargetKey } from "../src/target-key.js";

// The key of CloudKitty targets' secrets: configured, or generated once into the data directory.

const configOf = (env: NodeJS.ProcessEnv) => readConfig({ HOST: "127.0.0.1", ...env }, ".");

describe("RATECARD_SECRET_KEY", () => {
  it("is taken when it is 32 bytes in base64, and refused at start otherwise", () => {
    const key = Buffer.alloc(32, 3);
    expect(configOf({ RATECARD_SECRET_KEY: key.toString("base64") }).targetSecretKey).toEqual(key);
    expect(configOf({}).targetSecretKey).toBeUndefined();
    for (const wrong of [Buffer.alloc(16).toString("base64"), "not base64 at all!", "secret"]) {
      expect(() => configOf({ RATECARD_SECRET_KEY: wrong })).toThrow(ConfigError);
      expect(() => configOf({ RATECARD_SECRET_KEY: wrong })).toThrow(/32 bytes in base64/);
    }
  });
});

describe("the generated key", () => {
  it("is written once into the data directory (mode 0600) and read back after", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-key-"));
    const first = loadTargetKey(undefined, dir);
    expect(first).toHaveLength(32);
    const file = path.join(dir, "target-secret-key");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(loadTargetKey(undefined, dir)).toEqual(first);
    // A configured key wins, and the file is left as it is.
    const configured = Buffer.alloc(32, 9);
    expect(loadTargetKey(configured, dir)).toEqual(configured);
    expect(loadTargetKey(undefined, dir)).toEqual(first);
  });

  it("lives where the SQLite file is when DATA_DIR is not set", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-key-"));
    expect(configOf({ DATABASE_URL: `file:${dir}/ratecard.db` }).dataDir).toBe(dir);
    expect(configOf({ DATABASE_URL: `file:${dir}/ratecard.db`, DATA_DIR: "/srv/x" }).dataDir).toBe(
      "/srv/x",
    );
  });

  it("refuses a key file that was damaged, rather than replacing it", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-key-"));
    fs.writeFileSync(path.join(dir, "target-secret-key"), "short\n");
    expect(() => loadTargetKey(undefined, dir)).toThrow(/does not hold a 32-byte base64 key/);
  });
});
