import type { Command } from "commander";
import { CliError, requestJson, type Connection } from "./client.js";

/** Import, plan, drift and apply walk or write the whole target: they may take minutes. */
const LONG = { long: true } as const;
import {
  changeCount,
  formatApply,
  formatDrift,
  formatImport,
  formatProbe,
  formatRuns,
  formatTarget,
  formatTargetPlan,
  formatTargets,
  type Drift,
  type Probe,
  type Run,
  type Target,
  type TargetApply,
  type TargetImport,
  type TargetPlan,
} from "./target-text.js";

// `ratecard targets ...`: the CloudKitty targets of /v1/ratecard/targets (docs/cloudkitty-targets.md).
// A target is named by its id or its name. plan and drift exit 0 when there is nothing, 2 when
// there is something (for CI), 1 on error, as `ratecard plan` does.

const TARGETS = "v1/ratecard/targets";

export interface TargetCommandContext {
  connection: () => Connection;
  setExit: (code: number) => void;
  confirm: (question: string) => Promise<boolean>;
  exits: { ok: number; error: number; changes: number };
}

/** The target named by `ref`: its id (any case) or its exact name. */
async function resolve(connection: Connection, ref: string): Promise<Target> {
  const { targets } = await requestJson<{ targets: Target[] }>(connection, "GET", TARGETS);
  const found =
    targets.find((t) => t.target_id.toLowerCase() === ref.toLowerCase()) ??
    targets.find((t) => t.name === ref);
  if (found) return found;
  const known = targets.map((t) => t.name).join(", ");
  throw new CliError(
    `No CloudKitty target with the id or name ${JSON.stringify(ref)}` +
      (known ? ` (targets: ${known})` : " (none is registered)"),
  );
}

const path = (target: Target, action = "") =>
  `${TARGETS}/${encodeURIComponent(target.target_id)}${action ? `/${action}` : ""}`;

function print(json: boolean, value: unknown, text: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : text());
}

export function registerTargetCommands(program: Command, context: TargetCommandContext): void {
  const { connection, setExit, exits } = context;
  const targets = program
    .command("targets")
    .description("CloudKitty targets: list, show, probe, import, plan, apply, drift, runs");
  const jsonOption = ["--json", "print the server's JSON answer instead of text"] as const;

  targets
    .command("list")
    .description("List the registered CloudKitty targets")
    .option(...jsonOption)
    .action(async (options: { json?: boolean }) => {
      const answer = await requestJson<{ targets: Target[] }>(connection(), "GET", TARGETS);
      print(options.json ?? false, answer, () => formatTargets(answer.targets));
      setExit(exits.ok);
    });

  targets
    .command("show")
    .description("Show a target (no secret is ever shown)")
    .argument("<target>", "the target's id or name")
    .option(...jsonOption)
    .action(async (ref: string, options: { json?: boolean }) => {
      const target = await resolve(connection(), ref);
      print(options.json ?? false, target, () => formatTarget(target));
      setExit(exits.ok);
    });

  targets
    .command("probe")
    .description("Check reachability, authentication, CloudKitty's API generation and modules")
    .argument("<target>", "the target's id or name")
    .option(...jsonOption)
    .action(async (ref: string, options: { json?: boolean }) => {
      const c = connection();
      const target = await resolve(c, ref);
      const probe = await requestJson<Probe>(c, "POST", path(target, "probe"), {});
      print(options.json ?? false, probe, () => formatProbe(probe));
      setExit(probe.reachable ? exits.ok : exits.error);
    });

  targets
    .command("import")
    .description(
      "Import the target's rules into Ratecard with CloudKitty's ids (into an empty Ratecard, or --merge)",
    )
    .argument("<target>", "the target's id or name")
    .option("--merge", "add what Ratecard lacks and report conflicts, changing no existing rule")
    .option(...jsonOption)
    .action(async (ref: string, options: { merge?: boolean; json?: boolean }) => {
      const c = connection();
      const target = await resolve(c, ref);
      const result = await requestJson<TargetImport>(
        c,
        "POST",
        path(target, "import"),
        { merge: options.merge ?? false },
        LONG,
      );
      print(options.json ?? false, result, () => formatImport(result));
      setExit(exits.ok);
    });

  targets
    .command("plan")
    .description(
      "Show what apply would change on the target (exit 0: nothing, 2: changes, 1: error)",
    )
    .argument("<target>", "the target's id or name")
    .option(...jsonOption)
    .action(async (ref: string, options: { json?: boolean }) => {
      const c = connection();
      const target = await resolve(c, ref);
      const plan = await requestJson<TargetPlan>(c, "POST", path(target, "plan"), {}, LONG);
      print(options.json ?? false, plan, () => formatTargetPlan(plan, target.name));
      setExit(changeCount(plan) === 0 ? exits.ok : exits.changes);
    });

  targets
    .command("apply")
    .description("Plan, show the plan, and carry it out on the target after confirmation")
    .argument("<target>", "the target's id or name")
    .option("-y, --yes", "apply without asking (needed when standard input is not a terminal)")
    .action(async (ref: string, options: { yes?: boolean }) => {
      const c = connection();
      const target = await resolve(c, ref);
      const plan = await requestJson<TargetPlan>(c, "POST", path(target, "plan"), {}, LONG);
      process.stdout.write(formatTargetPlan(plan, target.name));
      const changes = changeCount(plan);
      if (changes === 0) return setExit(exits.ok);
      process.stdout.write(
        "CloudKitty takes about 30 ms a write: an apply of thousands of changes takes minutes, " +
          "and is not atomic (a failure stops midway; the run lists what was done).\n",
      );
      if (!options.yes) {
        if (!process.stdin.isTTY)
          throw new CliError(
            "Not applied: standard input is not a terminal to confirm on; pass --yes to apply.",
          );
        const question =
          `Apply ${changes === 1 ? "this change" : `these ${changes} changes`} to ${target.name}? ` +
          "CloudKitty applies them one by one: a failure stops midway without rolling back. [y/N] ";
        if (!(await context.confirm(question))) throw new CliError("Not applied.");
      }
      // The plan that was shown: refused (409) if Ratecard or the target changed since.
      const result = await requestJson<TargetApply>(
        c,
        "POST",
        path(target, "apply"),
        { plan_id: plan.plan_id },
        LONG,
      );
      process.stdout.write(formatApply(result));
      setExit(result.status === "ok" || result.status === "empty" ? exits.ok : exits.error);
    });

  targets
    .command("drift")
    .description(
      "Compare the target now with the last apply and with Ratecard (exit 0: none, 2: drift, 1: error)",
    )
    .argument("<target>", "the target's id or name")
    .option(...jsonOption)
    .action(async (ref: string, options: { json?: boolean }) => {
      const c = connection();
      const target = await resolve(c, ref);
      const drift = await requestJson<Drift>(c, "GET", path(target, "drift"), undefined, LONG);
      print(options.json ?? false, drift, () => formatDrift(drift, target.name));
      setExit(drift.differences.length === 0 ? exits.ok : exits.changes);
    });

  targets
    .command("runs")
    .description("The target's import, plan, apply and drift runs, newest first")
    .argument("<target>", "the target's id or name")
    .option("--limit <n>", "at most N runs (default: the server's, 50)")
    .option(...jsonOption)
    .action(async (ref: string, options: { limit?: string; json?: boolean }) => {
      const c = connection();
      if (options.limit !== undefined && !/^[1-9]\d*$/.test(options.limit))
        throw new CliError(`--limit: not a positive integer: ${options.limit}`);
      const target = await resolve(c, ref);
      const query = options.limit ? `?limit=${options.limit}` : "";
      const answer = await requestJson<{ runs: Run[] }>(
        c,
        "GET",
        `${path(target, "runs")}${query}`,
      );
      print(options.json ?? false, answer, () => formatRuns(answer.runs));
      setExit(exits.ok);
    });
}
