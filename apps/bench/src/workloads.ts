import { request, type CapturedAnswer } from "./http.js";
import {
  startDurableInsert,
  startEssentialsFloor,
  startReplay,
  type LimitServer,
  type SqliteDurability,
} from "./limits.js";
import { measure, type LoadRequest, type Measurement } from "./load.js";
import { clockTicksPerSecond, cpuTicks, waitUntilIdle } from "./proc.js";
import type { RatecardProcess } from "./ratecard.js";
import type { WorkloadResult } from "./report.js";
import {
  HASHMAP,
  PRICED_SERVICE,
  SCRIPTS,
  formatCents,
  mappingCostCents,
  mappingValue,
  type Seeded,
} from "./seed.js";

export interface Workload {
  name: string;
  request: LoadRequest;
  expectedStatus: number;
  /** Throws unless the captured answer is the one the workload means to measure. */
  check?: (body: string) => void;
  limit: "replay" | "durable insert";
  connections?: number;
}

export interface RunSettings {
  connections: number;
  seconds: number;
  warmupSeconds: number;
  /** For the durable-insert limit: a fresh database file and Ratecard's settings. */
  limitDatabase: { path: string } & SqliteDurability;
  /** When set, replayed reads are also measured on the essentials floor (limit-server.ts). */
  floor?: { databasePath: string; logPath: string };
}

const rowsOf = (key: string, expected: number) => (body: string) => {
  const rows = (JSON.parse(body) as Record<string, unknown[]>)[key]?.length;
  if (rows !== expected) throw new Error(`expected ${expected} ${key}, got ${rows}`);
};

export function readWorkloads(auth: Record<string, string>, seeded: Seeded): Workload[] {
  const get = (path: string): LoadRequest => ({ method: "GET", path, headers: auth });
  return [
    {
      name: "GET hashmap/types",
      request: get(`${HASHMAP}/types`),
      expectedStatus: 200,
      limit: "replay",
    },
    {
      name: "GET a service by id",
      request: get(`${HASHMAP}/services/${seeded.serviceId}`),
      expectedStatus: 200,
      limit: "replay",
    },
    {
      name: "GET a mapping by id",
      request: get(`${HASHMAP}/mappings/${seeded.mappingId}`),
      expectedStatus: 200,
      limit: "replay",
    },
    { name: "GET pyscripts/scripts", request: get(SCRIPTS), expectedStatus: 200, limit: "replay" },
    listWorkload(auth, seeded),
  ];
}

export function listWorkload(auth: Record<string, string>, seeded: Seeded): Workload {
  return {
    name: `GET mappings?field_id (${seeded.mappings} rows)`,
    request: {
      method: "GET",
      path: `${HASHMAP}/mappings?field_id=${seeded.fieldId}`,
      headers: auth,
    },
    expectedStatus: 200,
    check: rowsOf("mappings", seeded.mappings),
    limit: "replay",
  };
}

export function createMappingWorkload(auth: Record<string, string>, seeded: Seeded): Workload {
  return {
    name: "POST mappings",
    request: {
      method: "POST",
      path: `${HASHMAP}/mappings`,
      headers: auth,
      body: JSON.stringify({
        field_id: seeded.writesFieldId,
        value: "w-[<id>]",
        type: "flat",
        cost: "1.5",
      }),
      uniqueIds: true,
    },
    expectedStatus: 201,
    limit: "durable insert",
  };
}

/**
 * One quote of `resources` points, each naming one seeded mapping (spread over all of them by a
 * stride coprime with their count); checked against the exact sum of those mappings' costs.
 */
export function quoteWorkload(
  auth: Record<string, string>,
  seeded: Seeded,
  resources: number,
  connections?: number,
): Workload {
  const stride = 7_919;
  let totalCents = 0n;
  const points = Array.from({ length: resources }, (_, j) => {
    const i = (j * stride) % seeded.mappings;
    totalCents += BigInt(mappingCostCents(i));
    return { service: PRICED_SERVICE, desc: { flavor_id: mappingValue(i) }, volume: "1" };
  });
  const expected = formatCents(totalCents);
  return {
    name: `POST quote (${resources} resources, ${seeded.mappings} rules)`,
    request: {
      method: "POST",
      path: "/v1/rating/quote",
      headers: auth,
      body: JSON.stringify({ resources: points }),
    },
    expectedStatus: 200,
    check: (body) => {
      if (body !== expected) throw new Error(`expected the price ${expected}, got ${body}`);
    },
    limit: "replay",
    ...(connections === undefined ? {} : { connections }),
  };
}

/** Captures Ratecard's answer, then measures Ratecard and the workload's limit, one after the other. */
export async function runWorkload(
  server: RatecardProcess,
  workload: Workload,
  settings: RunSettings,
): Promise<WorkloadResult> {
  const answer = await capture(server, workload);
  const limit: LimitServer =
    workload.limit === "replay"
      ? await startReplay(answer)
      : await startDurableInsert(answer, settings.limitDatabase);
  try {
    const connections = workload.connections ?? settings.connections;
    const run = async (target: { baseUrl: string; pid: number }) => {
      await measure(target.baseUrl, workload.request, {
        connections,
        seconds: settings.warmupSeconds,
      });
      await waitUntilIdle(target.pid);
      const ticksBefore = cpuTicks(target.pid);
      const measured = await measure(target.baseUrl, workload.request, {
        connections,
        seconds: settings.seconds,
      });
      await waitUntilIdle(target.pid);
      // Includes working off the requests abandoned at the end (a few per connection).
      const ticksAfter = cpuTicks(target.pid);
      const cpuMicrosPerAnswer =
        ticksBefore === null || ticksAfter === null || measured.answers === 0
          ? null
          : ((ticksAfter - ticksBefore) * 1e6) / clockTicksPerSecond() / measured.answers;
      return { ...measured, cpuMicrosPerAnswer };
    };
    const ratecard = await run(server);
    const limitMeasurement = await run(limit);
    let floor: Measurement | undefined;
    if (settings.floor && workload.limit === "replay") {
      const floorServer = await startEssentialsFloor(answer, settings.floor);
      try {
        floor = await run(floorServer);
      } finally {
        await floorServer.stop();
      }
    }
    return {
      workload: workload.name,
      connections,
      ratecard,
      limit: limitMeasurement,
      limitKind: workload.limit,
      ...(floor ? { floor } : {}),
    };
  } finally {
    await limit.stop();
  }
}

async function capture(server: RatecardProcess, workload: Workload): Promise<CapturedAnswer> {
  const { method, path, headers, body, uniqueIds } = workload.request;
  const answer = await request(server.baseUrl, {
    method,
    path,
    headers,
    ...(body === undefined
      ? {}
      : { body: uniqueIds ? body.replaceAll("[<id>]", "capture") : body }),
  });
  const text = answer.body.toString();
  if (answer.status !== workload.expectedStatus)
    throw new Error(
      `${workload.name}: expected ${workload.expectedStatus}, got ${answer.status}: ${text.slice(0, 300)}`,
    );
  workload.check?.(text);
  return answer;
}
