import { execFileSync } from "node:child_process";
import os from "node:os";

/**
 * Where the processes of a run may run. On a machine of a few cores the load generator (this
 * process: autocannon runs here) and the server under test otherwise take turns on the same CPUs,
 * and a server that needs more CPU per answer is also the one that leaves less to the load
 * generator feeding it: the ratio then measures the sharing as much as the server. Pinned, the load
 * generator has CPUs of its own and every server (Ratecard and the limit servers alike) runs on the
 * others, so both sides of a ratio get the same CPUs.
 */
export interface Pinning {
  /** CPU list for taskset -c (e.g. "0"), or null when not pinned. */
  servers: string | null;
  load: string | null;
  /** For the report. */
  description: string;
}

export function choosePinning(wanted: boolean): Pinning {
  const cpus = os.cpus().length;
  if (!wanted) return { servers: null, load: null, description: "not pinned (--no-pin)" };
  if (cpus < 2) return { servers: null, load: null, description: `not pinned (${cpus} CPU)` };
  try {
    execFileSync("taskset", ["-V"], { stdio: "ignore" });
  } catch {
    return { servers: null, load: null, description: "not pinned (no taskset)" };
  }
  // Half the CPUs for the servers, the rest for the load generator: 0 and 1 on two cores.
  const half = Math.floor(cpus / 2);
  const range = (from: number, to: number) => (from === to ? `${from}` : `${from}-${to}`);
  const servers = range(0, half - 1);
  const load = range(half, cpus - 1);
  return {
    servers,
    load,
    description: `servers (Ratecard and the limits) on CPU ${servers}, load generator on CPU ${load}`,
  };
}

let current: Pinning = { servers: null, load: null, description: "not pinned" };

/** Chooses the pinning of this run: the servers started afterwards get it. */
export function usePinning(pinning: Pinning): void {
  current = pinning;
  pinThisProcess(pinning);
}

export function pinningInUse(): Pinning {
  return current;
}

/** Pins this process (every thread it has now; later ones inherit it) to the load generator's CPUs. */
export function pinThisProcess(pinning: Pinning): void {
  if (pinning.load === null) return;
  execFileSync("taskset", ["-a", "-p", "-c", pinning.load, String(process.pid)], {
    stdio: "ignore",
  });
}

/** The command that runs `argv` (a node command line) on the servers' CPUs. */
export function onServerCpus(argv: string[]): [string, string[]] {
  if (current.servers === null) return [argv[0]!, argv.slice(1)];
  return ["taskset", ["-c", current.servers, ...argv]];
}
