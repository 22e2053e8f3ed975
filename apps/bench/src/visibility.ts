import { performance } from "node:perf_hooks";
import { request, requestJson } from "./http.js";
import { HASHMAP } from "./seed.js";
import type { RatecardProcess } from "./ratecard.js";

/** How long a write acknowledged by one instance takes to show in another instance's reads. */
export interface Visibility {
  writes: number;
  /** From the writer's 201 to the first answer of the other instance that shows it, ms. */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Reads of the other instance, after the 201, that did not show the write yet. */
  staleReads: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

/**
 * Creates `writes` groups one by one on `writer`; after each 201, reads the group list on `reader`
 * (a second instance on the same database) until the new group is in it, and times that.
 */
export async function measureVisibility(
  writer: RatecardProcess,
  reader: RatecardProcess,
  writes: number,
): Promise<Visibility> {
  const delays: number[] = [];
  let staleReads = 0;
  const run = `${Date.now().toString(36)}`;
  for (let i = 0; i < writes; i++) {
    const made = await requestJson<{ group_id: string }>(
      writer.baseUrl,
      {
        method: "POST",
        path: `${HASHMAP}/groups`,
        headers: writer.authHeaders,
        body: JSON.stringify({ name: `visibility-${run}-${i}` }),
      },
      201,
    );
    const acknowledged = performance.now();
    for (;;) {
      const answer = await request(reader.baseUrl, {
        method: "GET",
        path: `${HASHMAP}/groups`,
        headers: reader.authHeaders,
      });
      if (answer.status !== 200) throw new Error(`GET groups on the reader: ${answer.status}`);
      if (answer.body.includes(made.group_id)) break;
      staleReads++;
      if (performance.now() - acknowledged > 10_000)
        throw new Error(`group ${made.group_id} not visible on the other instance after 10 s`);
    }
    delays.push(performance.now() - acknowledged);
  }
  delays.sort((x, y) => x - y);
  return {
    writes,
    p50Ms: percentile(delays, 50),
    p99Ms: percentile(delays, 99),
    maxMs: delays.at(-1) ?? Number.NaN,
    staleReads,
  };
}
