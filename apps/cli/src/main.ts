#!/usr/bin/env node
import fs from "node:fs/promises";
import { createInterface } from "node:readline/promises";
import { Command, CommanderError, Option } from "commander";
import {
  formatIssue,
  parseRuleSet,
  type RuleSetDocument,
  type RuleSetFormat,
  type RuleSetPlan,
} from "@ratecard/ruleset";
import { CliError, request, requestJson, type Connection } from "./client.js";
import { formatPlan } from "./plan-text.js";
import { registerTargetCommands } from "./targets.js";

// `ratecard`: Ratecard's rule set kept in git. export writes the canonical document; plan shows
// what a file would change (exit 0: nothing, 2: changes, 1: error, for CI); apply carries the
// plan out against the revision it was planned at, after a confirmation or --yes. `targets ...`
// does the same against CloudKitty deployments (targets.ts).

const EXIT_OK = 0;
const EXIT_ERROR = 1;
const EXIT_CHANGES = 2;

const RULESET = "v1/ratecard/ruleset";

interface Globals {
  url?: string;
  token?: string;
}

function connectionOf(program: Command): Connection {
  const options = program.opts<Globals>();
  const url = options.url ?? process.env.RATECARD_URL;
  if (!url)
    throw new CliError(
      "No Ratecard URL: set RATECARD_URL or pass --url (e.g. http://127.0.0.1:8080).",
    );
  if (!/^https?:\/\//i.test(url)) throw new CliError(`Not an http(s) URL: ${url}`);
  const token = options.token ?? (process.env.RATECARD_TOKEN || undefined);
  return { url, token };
}

async function readDocument(file: string): Promise<RuleSetDocument> {
  let text: string;
  try {
    text = file === "-" ? await readStdin() : await fs.readFile(file, "utf8");
  } catch (error) {
    throw new CliError(`Cannot read ${file}: ${(error as Error).message}`);
  }
  const format: RuleSetFormat | undefined = /\.ya?ml$/i.test(file)
    ? "yaml"
    : /\.json$/i.test(file)
      ? "json"
      : undefined;
  const parsed = parseRuleSet(text, format);
  if (!parsed.ok) {
    const count = parsed.issues.length;
    throw new CliError(
      `${file}: not a valid rule set (${count} error${count === 1 ? "" : "s"}):\n` +
        parsed.issues.map((issue) => `  ${formatIssue(issue)}`).join("\n"),
    );
  }
  return parsed.document;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

async function planOf(connection: Connection, document: RuleSetDocument): Promise<RuleSetPlan> {
  const plan = await requestJson<RuleSetPlan>(connection, "POST", `${RULESET}/plan`, document, {
    long: true,
  });
  if (plan.errors.length > 0) {
    throw new CliError(
      `The plan has errors; nothing can be applied:\n` +
        plan.errors.map((issue) => `  ${formatIssue(issue)}`).join("\n"),
    );
  }
  return plan;
}

async function confirm(question: string): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await prompt.question(question)).trim());
  } finally {
    prompt.close();
  }
}

function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command("ratecard")
    .description(
      "Ratecard's rule set as a file: export it, plan a change, apply it; and to CloudKitty targets.",
    )
    .option("--url <url>", "Ratecard's base URL (default: $RATECARD_URL)")
    .option("--token <token>", "an API token, sent as X-Auth-Token (default: $RATECARD_TOKEN)")
    .showHelpAfterError()
    .exitOverride();

  program
    .command("export")
    .description("Write the rule set as its canonical document (JSON, or YAML)")
    .addOption(
      new Option(
        "--format <format>",
        "json or yaml (default: from -o's extension, else json)",
      ).choices(["json", "yaml"]),
    )
    .option("-o, --output <file>", "write to FILE instead of standard output")
    .action(async (options: { format?: RuleSetFormat; output?: string }) => {
      const format =
        options.format ?? (options.output && /\.ya?ml$/i.test(options.output) ? "yaml" : "json");
      const answer = await request(connectionOf(program), "GET", `${RULESET}?format=${format}`);
      if (options.output) {
        await fs.writeFile(options.output, answer.text);
        process.stderr.write(`Wrote ${options.output}\n`);
      } else {
        process.stdout.write(answer.text);
      }
      setExit(EXIT_OK);
    });

  program
    .command("plan")
    .description("Show what applying FILE would change (exit 0: nothing, 2: changes, 1: error)")
    .argument("<file>", "a rule-set document, JSON or YAML ('-': standard input)")
    .action(async (file: string) => {
      const plan = await planOf(connectionOf(program), await readDocument(file));
      process.stdout.write(formatPlan(plan));
      setExit(plan.operations.length === 0 ? EXIT_OK : EXIT_CHANGES);
    });

  program
    .command("apply")
    .description("Plan FILE, show the plan, and apply it in one transaction after confirmation")
    .argument("<file>", "a rule-set document, JSON or YAML")
    .option("-y, --yes", "apply without asking (needed when standard input is not a terminal)")
    .action(async (file: string, options: { yes?: boolean }) => {
      const connection = connectionOf(program);
      const document = await readDocument(file);
      const plan = await planOf(connection, document);
      process.stdout.write(formatPlan(plan));
      if (plan.operations.length === 0) return setExit(EXIT_OK);
      if (!options.yes) {
        if (!process.stdin.isTTY) {
          throw new CliError(
            "Not applied: standard input is not a terminal to confirm on; pass --yes to apply.",
          );
        }
        if (
          !(await confirm(
            `Apply ${plan.operations.length === 1 ? "this change" : `these ${plan.operations.length} changes`} to ${connection.url}? [y/N] `,
          ))
        ) {
          throw new CliError("Not applied.");
        }
      }
      // Against the revision the plan was made at: a rule set changed meanwhile is refused (409).
      const result = await requestJson<{
        planned_revision: string;
        revision: string;
        counts: RuleSetPlan["counts"];
      }>(
        connection,
        "POST",
        `${RULESET}/apply`,
        { ...document, revision: plan.revision },
        { long: true },
      );
      const { create, update, delete: remove } = result.counts;
      process.stdout.write(
        `Applied: ${create} created, ${update} updated, ${remove} deleted; ` +
          `revision ${result.planned_revision} -> ${result.revision}.\n`,
      );
      setExit(EXIT_OK);
    });

  registerTargetCommands(program, {
    connection: () => connectionOf(program),
    setExit,
    confirm,
    exits: { ok: EXIT_OK, error: EXIT_ERROR, changes: EXIT_CHANGES },
  });

  return program;
}

async function main(argv: string[]): Promise<number> {
  let code = EXIT_OK;
  const program = buildProgram((exit) => (code = exit));
  try {
    await program.parseAsync(argv);
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version are not errors; commander has printed the rest already.
      return error.exitCode === 0 ? EXIT_OK : EXIT_ERROR;
    }
    if (error instanceof CliError) {
      process.stderr.write(`ratecard: ${error.message}\n`);
      return EXIT_ERROR;
    }
    process.stderr.write(`ratecard: ${(error as Error).stack ?? String(error)}\n`);
    return EXIT_ERROR;
  }
}

process.exitCode = await main(process.argv);
