import { execFile } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

// The real CloudKitty 17 of ../shared/reference/cloudkitty (noauth, Debian's packages), on a
// directory and port of the calling test file's own, and the real `cloudkitty` CLI against it.

const run = promisify(execFile);
const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");
const referenceDir =
  process.env.CLOUDKITTY_REFERENCE_DIR ??
  path.resolve(repositoryRoot, "../shared/reference/cloudkitty");

export interface ReferenceCloudKitty {
  url: string;
  /** start.sh (the first start installs the packages: minutes), then reset.sh: an empty CloudKitty. */
  start: () => Promise<void>;
  stop: () => Promise<void>;
  /** The real CLI in noauth, `-f json` output parsed: the first row. */
  cli: (...args: string[]) => Promise<Record<string, string>>;
}

export function referenceCloudKitty(options: { dir: string; port: number }): ReferenceCloudKitty {
  const url = `http://127.0.0.1:${options.port}`;
  const env = { ...process.env, CK_DIR: options.dir, CK_PORT: String(options.port) };
  const script = (name: string) => path.join(referenceDir, name);
  return {
    url,
    async start() {
      await run(script("start.sh"), [], { env, timeout: 15 * 60_000 });
      await run(script("reset.sh"), [], { env, timeout: 60_000 });
    },
    async stop() {
      await run(script("stop.sh"), [], { env, timeout: 60_000 });
    },
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
