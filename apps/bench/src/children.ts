import type { ChildProcess } from "node:child_process";

const running = new Set<ChildProcess>();

/** Tracks a child so that it is killed when the benchmark exits, however it exits. */
export function track<T extends ChildProcess>(child: T): T {
  running.add(child);
  child.once("exit", () => running.delete(child));
  return child;
}

/** Sends SIGTERM, then SIGKILL if the child has not exited within `graceMs`. */
export function stopChild(child: ChildProcess, graceMs = 5_000): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
    const force = setTimeout(() => child.kill("SIGKILL"), graceMs);
    child.once("exit", (code) => {
      clearTimeout(force);
      resolve(code);
    });
    child.kill("SIGTERM");
  });
}

function killAll(): void {
  for (const child of running) child.kill("SIGKILL");
}

process.once("exit", killAll);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const)
  process.once(signal, () => {
    killAll();
    process.exit(130);
  });
