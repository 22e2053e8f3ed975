import { execFileSync } from "node:child_process";
import fs from "node:fs";

export interface Resident {
  /** Resident memory of the process, MiB. */
  rssMiB: number;
  /**
   * The part backed by files (node's own code, mostly): shared with every other node process and
   * fixed, so the rest is what the server's data and heap cost.
   */
  fileMiB: number;
}

/** Resident memory of one process, from /proc (Linux only). */
export function resident(pid: number): Resident | null {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
    const mib = (name: string) =>
      Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, "m").exec(status)?.[1]) / 1024;
    const rssMiB = mib("VmRSS");
    return Number.isFinite(rssMiB) ? { rssMiB, fileMiB: mib("RssFile") } : null;
  } catch {
    return null;
  }
}

/** User + system CPU time of one process in clock ticks (usually 10 ms), or null when gone. */
export function cpuTicks(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name, which may itself hold spaces: utime and stime are 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

const IDLE_WINDOW_MS = 100;
const IDLE_MAX_TICKS = 1;
const IDLE_TIMEOUT_MS = 10_000;

/**
 * Waits until `pid` has used at most one clock tick of CPU in 100 ms. autocannon abandons the
 * requests in flight when a run ends; the server still works them off, and that work must not
 * be counted against the next run.
 */
export async function waitUntilIdle(pid: number): Promise<void> {
  const deadline = Date.now() + IDLE_TIMEOUT_MS;
  let before = cpuTicks(pid);
  while (before !== null && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, IDLE_WINDOW_MS));
    const now = cpuTicks(pid);
    if (now === null || now - before <= IDLE_MAX_TICKS) return;
    before = now;
  }
}

let ticksPerSecond: number | undefined;

/** The kernel's clock ticks per second (getconf CLK_TCK; 100 nearly everywhere). */
export function clockTicksPerSecond(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
    } catch {
      ticksPerSecond = 100;
    }
    if (!Number.isFinite(ticksPerSecond) || ticksPerSecond <= 0) ticksPerSecond = 100;
  }
  return ticksPerSecond;
}
