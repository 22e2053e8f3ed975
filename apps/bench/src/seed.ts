import { requestJson } from "./http.js";

export const HASHMAP = "/v1/rating/module_config/hashmap";
export const SCRIPTS = "/v1/rating/module_config/pyscripts/scripts";

/** The service the quote prices: its mappings are the rules of the list and quote workloads. */
export const PRICED_SERVICE = "bench.instance";
export const PRICED_FIELD = "flavor_id";
const SCRIPT_COUNT = 5;
// Parallel creates keep the server busy while one request waits for its commit.
const SEED_CONCURRENCY = 16;

export interface Seeded {
  serviceId: string;
  /** The field holding every seeded mapping. */
  fieldId: string;
  mappingId: string;
  /** A field of its own for POST mappings, so that the writes do not grow the listed field. */
  writesFieldId: string;
  mappings: number;
}

interface Api {
  baseUrl: string;
  authHeaders: Record<string, string>;
}

function post<T>(api: Api, path: string, body: unknown): Promise<T> {
  return requestJson<T>(
    api.baseUrl,
    { method: "POST", path, headers: api.authHeaders, body: JSON.stringify(body) },
    201,
  );
}

/** The value of the i-th seeded mapping: what a quote's resource names to match it. */
export const mappingValue = (i: number) => `flavor-${String(i).padStart(6, "0")}`;

/** The i-th mapping's cost in hundredths: from 0.01 to 9.97, so that sums stay exact integers. */
export const mappingCostCents = (i: number) => (i % 997) + 1;

export const formatCents = (cents: bigint) => {
  const text = cents.toString().padStart(3, "0");
  return `${text.slice(0, -2)}.${text.slice(-2)}`.replace(/\.?0+$/, "");
};

export async function seedParents(api: Api): Promise<Omit<Seeded, "mappingId" | "mappings">> {
  const service = await post<{ service_id: string }>(api, `${HASHMAP}/services`, {
    name: PRICED_SERVICE,
  });
  const field = await post<{ field_id: string }>(api, `${HASHMAP}/fields`, {
    name: PRICED_FIELD,
    service_id: service.service_id,
  });
  const writes = await post<{ service_id: string }>(api, `${HASHMAP}/services`, {
    name: "bench.writes",
  });
  const writesField = await post<{ field_id: string }>(api, `${HASHMAP}/fields`, {
    name: "key",
    service_id: writes.service_id,
  });
  for (let i = 0; i < SCRIPT_COUNT; i += 1)
    await post(api, SCRIPTS, {
      name: `bench-script-${i}`,
      data: `import decimal\n# script ${i}\n${"data['total'] = data.get('total', 0)\n".repeat(20)}`,
    });
  return {
    serviceId: service.service_id,
    fieldId: field.field_id,
    writesFieldId: writesField.field_id,
  };
}

/** Creates mappings `from` to `to - 1` on the priced field, returning the first one's id. */
export async function seedMappings(
  api: Api,
  fieldId: string,
  from: number,
  to: number,
): Promise<string | undefined> {
  let next = from;
  let firstId: string | undefined;
  const worker = async () => {
    while (next < to) {
      const i = next;
      next += 1;
      const cents = BigInt(mappingCostCents(i));
      const created = await post<{ mapping_id: string }>(api, `${HASHMAP}/mappings`, {
        field_id: fieldId,
        value: mappingValue(i),
        type: "flat",
        cost: formatCents(cents),
      });
      if (i === from) firstId = created.mapping_id;
    }
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
  return firstId;
}
