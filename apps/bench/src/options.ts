import { parseArgs } from "node:util";

export interface Options {
  secondsPerWorkload: number;
  warmupSeconds: number;
  connections: number;
  /** Mappings seeded for the first round of workloads, then grown to `largeMappings`. */
  smallMappings: number;
  largeMappings: number;
  quoteResources: number;
  /** Writes on one server, each timed until a second server on the same database shows it. */
  visibilityWrites: number;
  /** Measures the visibility on two servers on this database (postgresql://) instead. */
  visibilityDatabase: string | undefined;
  json: string | undefined;
  preferAuth: boolean;
  keepFiles: boolean;
  /** Load generator and servers on CPUs of their own (see pinning.ts). */
  pin: boolean;
  /** Only the workloads whose name contains this (case-insensitive); skips the visibility check. */
  only: string | undefined;
  /** Ratecard runs with --cpu-prof and writes its profiles here when it stops. */
  cpuProfileDir: string | undefined;
  /** Seconds without requests after the run before the server's RSS is read again. */
  restSeconds: number;
  /** Another build of the server to measure (an A/B comparison), instead of apps/server/dist. */
  serverEntry: string | undefined;
  /** Node flags added after scripts/start.sh's (later flags win), for experiments. */
  serverNodeOptions: string | undefined;
  /** Also measures the essentials floor of each read (limit-server.ts). */
  floor: boolean;
}

export const USAGE = `Usage: pnpm --filter @ratecard/bench bench [options]   (after pnpm build)

  --quick              a smoke run: 20 then 60 mappings, 0.2 s per workload
  --seconds <s>        measured seconds per workload and server (default 5)
  --warmup <s>         unmeasured seconds before each measurement (default 1)
  --connections <n>    concurrent connections (default 16)
  --small <n>          mappings for the first round (default 1000)
  --large <n>          mappings for the list and quote round (default 10000)
  --quote-resources <n> resources in one quote (default 1000)
  --visibility <n>     writes timed until a second server shows them (default 200)
  --visibility-database <url>
                       measure that on two servers on this PostgreSQL database (an empty one)
  --rest <s>           seconds the server is left at rest after the run before its RSS is read
                       again (default 15)
  --json <file>        also write the results as JSON
  --noauth             run without authentication (default: AUTH_STRATEGY=local)
  --keep               keep the temporary database and server log
  --no-pin             let the load generator and the servers share every CPU (default: taskset
                       puts the servers on the first half of the CPUs, the load generator on the rest)
  --floor              also measure each read's floor: a bare server doing only what every Ratecard
                       answer must do (request id, access line, metrics, token digest, data_version)
                       before replaying the same bytes; the report adds its ratio and CPU
  --only <text>        only the workloads whose name contains <text> (no visibility check)
  --cpu-prof <dir>     run Ratecard with node --cpu-prof, its profiles written to <dir> at each stop
  --server <main.js>   measure this build of the server instead of apps/server/dist/main.js (A/B;
                       it must sit where it resolves the same packages, e.g. apps/server/dist-a/)
  --server-node-options <flags>
                       node flags on the server's command line, after scripts/start.sh's own (V8's
                       flags such as --trace-gc too; an experiment, not the shipped server: the
                       report says so)
`;

function positive(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`--${name} must be a positive number, got "${raw}"\n\n${USAGE}`);
  return value;
}

export function readOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: "boolean", default: false },
      seconds: { type: "string" },
      warmup: { type: "string" },
      connections: { type: "string" },
      small: { type: "string" },
      large: { type: "string" },
      "quote-resources": { type: "string" },
      visibility: { type: "string" },
      "visibility-database": { type: "string" },
      json: { type: "string" },
      rest: { type: "string" },
      noauth: { type: "boolean", default: false },
      keep: { type: "boolean", default: false },
      "no-pin": { type: "boolean", default: false },
      only: { type: "string" },
      "cpu-prof": { type: "string" },
      server: { type: "string" },
      "server-node-options": { type: "string" },
      floor: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const quick = values.quick;
  const options: Options = {
    secondsPerWorkload: positive("seconds", values.seconds, quick ? 0.2 : 5),
    warmupSeconds: positive("warmup", values.warmup, quick ? 0.1 : 1),
    connections: Math.round(positive("connections", values.connections, 16)),
    smallMappings: Math.round(positive("small", values.small, quick ? 20 : 1_000)),
    largeMappings: Math.round(positive("large", values.large, quick ? 60 : 10_000)),
    quoteResources: Math.round(
      positive("quote-resources", values["quote-resources"], quick ? 50 : 1_000),
    ),
    visibilityWrites: Math.round(positive("visibility", values.visibility, quick ? 10 : 200)),
    visibilityDatabase: values["visibility-database"],
    json: values.json,
    preferAuth: !values.noauth,
    keepFiles: values.keep,
    pin: !values["no-pin"],
    only: values.only,
    cpuProfileDir: values["cpu-prof"],
    restSeconds: positive("rest", values.rest, quick ? 0.1 : 15),
    serverEntry: values.server,
    serverNodeOptions: values["server-node-options"],
    floor: values.floor,
  };
  if (options.largeMappings < options.smallMappings)
    throw new Error(`--large must be at least --small\n\n${USAGE}`);
  return options;
}
