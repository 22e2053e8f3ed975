import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type Client } from "./support/client.js";
import { expectFault, seeder } from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";

// CloudKitty's /v1/info, read from a collector configuration in CloudKitty's own format.

/** Shaped like CloudKitty's etc/cloudkitty/metrics.yml, with the corners of its format. */
const METRICS_YML = `# the collector configuration
metrics:
  cpu:
    unit: instance
    alt_name: instance
    groupby:
      - id
      - user_id
      - project_id
    metadata:
      - flavor_name
      - flavor_id
      - vcpus
      - flavor_name
    mutate: NUMBOOL
    extra_args:
      aggregation_method: mean
      resource_type: instance
      force_granularity: 300

  image.size:
    unit: MiB
    factor: 1/1048576
    groupby: [id, project_id]
    metadata: [container_format, disk_format]

  radosgw.objects.size:
    unit: GiB
    factor: 1/1073741824
    extra_args:
      enabled: yes
`;

const NO_METRICS = "Invalid endpoint: no metrics in current configuration.";
const INSTANCE = {
  metric_id: "instance",
  metadata: ["flavor_name", "flavor_id", "vcpus"],
  unit: "instance",
};
const METRICS = [
  INSTANCE,
  { metric_id: "image.size", metadata: ["container_format", "disk_format"], unit: "MiB" },
  { metric_id: "radosgw.objects.size", metadata: [], unit: "GiB" },
];

const directory = fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-metrics-"));
function metricsFile(name: string, text: string): string {
  const file = path.join(directory, name);
  fs.writeFileSync(file, text);
  return file;
}

/** Starts a server that must refuse to start, and returns what it printed. */
async function startFailure(env: Record<string, string>): Promise<string> {
  try {
    const server = await startServer({ env });
    await server.stop();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("the server started");
}

describe("with a METRICS_FILE", () => {
  let server: TestServer;
  let api: Client;
  let file: string;
  beforeAll(async () => {
    file = metricsFile("metrics.yml", METRICS_YML);
    server = await startServer({ env: { METRICS_FILE: file } });
    api = createClient(server.baseUrl);
  });
  afterAll(async () => {
    await server.stop();
  });

  it("GET /v1/info/config answers the file as loaded", async () => {
    const answer = await api.get("/v1/info/config");
    expect(answer.status).toBe(200);
    expect(answer.body.metrics.cpu).toEqual({
      unit: "instance",
      alt_name: "instance",
      groupby: ["id", "user_id", "project_id"],
      metadata: ["flavor_name", "flavor_id", "vcpus", "flavor_name"],
      mutate: "NUMBOOL",
      extra_args: { aggregation_method: "mean", resource_type: "instance", force_granularity: 300 },
    });
    // PyYAML (CloudKitty's reader) keeps 1/1048576 as text and reads `yes` as true.
    expect(answer.body.metrics["image.size"].factor).toBe("1/1048576");
    expect(answer.body.metrics["radosgw.objects.size"].extra_args.enabled).toBe(true);
    expect((await api.get("/v1/info/config/")).body).toEqual(answer.body);
  });

  it.skipIf(!fs.existsSync("/usr/lib/python3/dist-packages/yaml"))(
    "GET /v1/info/config equals what PyYAML's safe_load reads, as CloudKitty answers it",
    async () => {
      const pyyaml = execFileSync("/usr/bin/python3", [
        "-c",
        "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))",
        file,
      ]).toString();
      expect((await api.get("/v1/info/config")).body).toEqual(JSON.parse(pyyaml));
    },
  );

  it("GET /v1/info/metrics lists each metric by its alt_name, metadata without repeats", async () => {
    for (const route of ["/v1/info/metrics", "/v1/info/metrics/", "/v1/info/services/"]) {
      const answer = await api.get(route);
      expect({ route, status: answer.status, body: answer.body }).toEqual({
        route,
        status: 200,
        body: { metrics: METRICS },
      });
    }
  });

  it("GET /v1/info/metrics/<alt_name> answers one metric; its key alone is a 404", async () => {
    for (const route of ["/v1/info/metrics/instance", "/v1/info/services/instance/"]) {
      const answer = await api.get(route);
      expect({ route, status: answer.status, body: answer.body }).toEqual({
        route,
        status: 200,
        body: INSTANCE,
      });
    }
    expect((await api.get("/v1/info/metrics/image.size")).body).toEqual(METRICS[1]);
    expectFault(await api.get("/v1/info/metrics/cpu"), 404, "cpu");
    expectFault(await api.get("/v1/info/services/nothing"), 404, "nothing");
  });

  it("answers for a hashmap service the file does not list, so Horizon's Hashmap page works", async () => {
    await seeder(api).service("licence.windows");
    for (const route of ["/v1/info/metrics/licence.windows", "/v1/info/services/licence.windows"]) {
      const answer = await api.get(route);
      expect({ route, status: answer.status, body: answer.body }).toEqual({
        route,
        status: 200,
        body: { metric_id: "licence.windows", metadata: [], unit: "undefined" },
      });
    }
    // The list is the collector's: it offers names for new services.
    expect((await api.get("/v1/info/metrics")).body).toEqual({ metrics: METRICS });
  });

  it("refuses unknown arguments and other methods as on every route", async () => {
    expectFault(await api.get("/v1/info/metrics?metric=x"), 400, 'Unknown argument: "metric"');
    const post = await api.post("/v1/info/metrics", {});
    expectFault(post, 405, "The method POST is not allowed for this resource");
    expect(post.headers.get("allow")).toBe("GET");
  });

  it("offers the console each metric's field names over RPC", async () => {
    const response = await fetch(`${server.baseUrl}/trpc/info.collectorMetrics`);
    const answer = (await response.json()) as any;
    expect(answer.result.data).toEqual({
      configured: true,
      metrics: [
        {
          name: "cpu",
          metric_id: "instance",
          unit: "instance",
          groupby: ["id", "user_id", "project_id"],
          metadata: ["flavor_name", "flavor_id", "vcpus"],
        },
        {
          name: "image.size",
          metric_id: "image.size",
          unit: "MiB",
          groupby: ["id", "project_id"],
          metadata: ["container_format", "disk_format"],
        },
        {
          name: "radosgw.objects.size",
          metric_id: "radosgw.objects.size",
          unit: "GiB",
          groupby: [],
          metadata: [],
        },
      ],
    });
  });

  it("documents the five routes in the OpenAPI document", async () => {
    const document = (await api.get("/v1/openapi.json")).body;
    for (const route of [
      "/v1/info/config",
      "/v1/info/metrics",
      "/v1/info/metrics/{metric_name}",
      "/v1/info/services",
      "/v1/info/services/{service_name}",
    ])
      expect(document.paths[route]?.get, route).toBeDefined();
    expect(document.paths["/v1/info/services"].get.deprecated).toBe(true);
  });
});

describe("without a METRICS_FILE", () => {
  let server: TestServer;
  let api: Client;
  beforeAll(async () => {
    server = await startServer();
    api = createClient(server.baseUrl);
  });
  afterAll(async () => {
    await server.stop();
  });

  it("answers CloudKitty's 405 on the metrics routes", async () => {
    for (const route of [
      "/v1/info/metrics",
      "/v1/info/metrics/instance",
      "/v1/info/services/",
      "/v1/info/services/instance",
    ]) {
      const answer = await api.get(route);
      expectFault(answer, 405, NO_METRICS);
    }
  });

  it("answers a configuration without metrics, which Horizon's service page reads", async () => {
    const answer = await api.get("/v1/info/config/");
    expect({ status: answer.status, body: answer.body }).toEqual({
      status: 200,
      body: { metrics: {} },
    });
  });

  it("still answers for an existing hashmap service", async () => {
    await seeder(api).service("compute");
    const answer = await api.get("/v1/info/metrics/compute");
    expect({ status: answer.status, body: answer.body }).toEqual({
      status: 200,
      body: { metric_id: "compute", metadata: [], unit: "undefined" },
    });
    const response = await fetch(`${server.baseUrl}/trpc/info.collectorMetrics`);
    expect(((await response.json()) as any).result.data).toEqual({
      configured: false,
      metrics: [],
    });
  });
});

describe("METRICS_FILE without metrics", () => {
  it("answers the file as loaded and the 405 on the metrics routes", async () => {
    const server = await startServer({
      env: { METRICS_FILE: metricsFile("empty.yml", "# nothing collected yet\n") },
    });
    try {
      const api = createClient(server.baseUrl);
      const config = await api.get("/v1/info/config");
      expect({ status: config.status, body: config.body }).toEqual({ status: 200, body: {} });
      expectFault(await api.get("/v1/info/metrics"), 405, NO_METRICS);
    } finally {
      await server.stop();
    }
  });
});

describe("a METRICS_FILE Ratecard cannot use", () => {
  it.each([
    ["a missing file", () => path.join(directory, "missing.yml"), /cannot be read \(ENOENT\)/],
    [
      "invalid YAML",
      () => metricsFile("broken.yml", "metrics:\n  cpu: [unit\n"),
      /is not valid YAML \(line \d+, column \d+\): Flow sequence/,
    ],
    [
      "a metric without a unit",
      () => metricsFile("no-unit.yml", "metrics:\n  cpu:\n    alt_name: instance\n"),
      /: metric "cpu": unit is required \(a non-empty string\)$/,
    ],
    [
      "metrics as a list",
      () => metricsFile("list.yml", "metrics:\n  - cpu\n"),
      /"metrics" must be a mapping of metric names to their settings$/,
    ],
    [
      "a key in both groupby and metadata",
      () =>
        metricsFile(
          "both.yml",
          "metrics:\n  cpu:\n    unit: i\n    groupby: [id]\n    metadata: [id]\n",
        ),
      /: metric "cpu": id in both groupby and metadata/,
    ],
  ])("stops the start with one line for %s", async (_case, file, reason) => {
    const metricsPath = file();
    const output = await startFailure({ METRICS_FILE: metricsPath });
    const lines = output.split("\n").filter((line) => line.startsWith("Ratecard cannot start"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`Ratecard cannot start: METRICS_FILE ${metricsPath}`);
    expect(lines[0]).toMatch(reason);
    expect(output).not.toMatch(/\n\s+at /);
  });
});
