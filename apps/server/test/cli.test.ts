import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cliFault,
  cliVersion,
  column,
  createCli,
  recordRequests,
  type Cli,
  type CliResult,
  type CliRow,
} from "./support/cli.js";
import { createClient, HASHMAP, PYSCRIPTS, type Client } from "./support/client.js";
import { seeder, uniqueName, type Seeder } from "./support/hashmap.js";
import { startServer, type TestServer } from "./support/server.js";

// Every hashmap, pyscript and module command of the real client (python-cloudkittyclient), run as
// an operator runs it, checked against what it prints and what the API then holds.

let server: TestServer;
let api: Client;
let cli: Cli;
let seed: Seeder;
beforeAll(async () => {
  // No skip: without the client these tests fail, saying how to install it.
  await cliVersion();
  server = await startServer();
  api = createClient(server.baseUrl);
  cli = createCli(server.baseUrl);
  seed = seeder(api);
});
afterAll(async () => {
  await server?.stop();
});

const sha512 = (text: string) => createHash("sha512").update(text, "utf8").digest("hex");

function only(rows: CliRow[]): CliRow {
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

/**
 * CloudKitty master's lifecycle keys (docs/lifecycle.md) that Ratecard adds to every rule and
 * script it answers: the CLI ignores them. `rule` adds the generated name a script does not have.
 */
function lifecycle(changes: Record<string, unknown> = {}, rule = true) {
  return {
    created_at: expect.any(String),
    start: expect.any(String),
    end: null,
    ...(rule && { name: expect.stringMatching(/^[0-9a-f]{32}$/) }),
    description: null,
    deleted: null,
    created_by: "noauth",
    updated_by: null,
    deleted_by: null,
    ...changes,
  };
}

/** What the API holds at `path` (200 expected). */
async function held(path: string, query?: Record<string, string>): Promise<any> {
  const answer = await api.get(path, query ? { query } : undefined);
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}

function expectCliFault(result: CliResult, status: number, faultstring: string): void {
  expect(result.exitCode, result.stdout).toBe(1);
  expect(cliFault(result)).toEqual({
    status,
    body: { faultcode: "Client", faultstring, debuginfo: null },
  });
}

/** Runs a command and returns its rows and the requests it made, as "METHOD path". */
async function onTheWire(run: () => Promise<CliRow[]>) {
  const { result, requests } = await recordRequests(server, run);
  return { rows: result, requests: requests.map((request) => `${request.method} ${request.url}`) };
}

/** The row `hashmap mapping ...` prints for a mapping as the API renders it. */
function mappingRow(mapping: any): CliRow {
  return {
    "Mapping ID": mapping.mapping_id,
    Value: mapping.value,
    Cost: mapping.cost,
    Type: mapping.type,
    "Field ID": mapping.field_id,
    "Service ID": mapping.service_id,
    "Group ID": mapping.group_id,
    "Project ID": mapping.tenant_id,
  };
}

function thresholdRow(threshold: any): CliRow {
  return {
    "Threshold ID": threshold.threshold_id,
    Level: threshold.level,
    Cost: threshold.cost,
    Type: threshold.type,
    "Field ID": threshold.field_id,
    "Service ID": threshold.service_id,
    "Group ID": threshold.group_id,
    "Project ID": threshold.tenant_id,
  };
}

const ids = (rows: CliRow[], column: string) => rows.map((row) => row[column]).sort();

describe("cloudkitty hashmap mapping-types", () => {
  it("lists flat and rate", async () => {
    expect(await cli.rows("hashmap", "mapping-types", "list")).toEqual([
      { "Mapping types": "flat" },
      { "Mapping types": "rate" },
    ]);
  });
});

describe("cloudkitty hashmap service", () => {
  it("creates, lists, gets and deletes a service", async () => {
    const name = uniqueName("compute");
    const created = only(await cli.rows("hashmap", "service", "create", name));
    const serviceId = column(created, "Service ID");
    expect(created).toEqual({ Name: name, "Service ID": expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(await held(`${HASHMAP}/services/${serviceId}`)).toEqual({ service_id: serviceId, name });

    expect(await cli.rows("hashmap", "service", "list")).toContainEqual(created);
    expect(await cli.rows("hashmap", "service", "get", serviceId)).toEqual([created]);

    await cli.quiet("hashmap", "service", "delete", serviceId);
    expect((await api.get(`${HASHMAP}/services/${serviceId}`)).status).toBe(404);
    expect(await cli.rows("hashmap", "service", "list")).not.toContainEqual(created);
  });

  it("prints the API's fault for a duplicate name and an unknown id", async () => {
    const existing = await seed.service();
    expectCliFault(
      await cli.run("hashmap", "service", "create", existing.name),
      409,
      `Service ${existing.name} already exists (UUID: ${existing.service_id})`,
    );
    expectCliFault(
      await cli.run("hashmap", "service", "get", "nope"),
      404,
      "No such service: None (UUID: nope)",
    );
    const unknown = "11111111-1111-4111-8111-111111111111";
    expectCliFault(
      await cli.run("hashmap", "service", "delete", unknown),
      404,
      `No such service: None (UUID: ${unknown})`,
    );
    expect((await held(`${HASHMAP}/services`)).services).toContainEqual(existing);
  });
});

describe("cloudkitty hashmap field", () => {
  it("creates, lists, gets and deletes a field", async () => {
    const service = await seed.service();
    const name = uniqueName("flavor");
    const created = only(await cli.rows("hashmap", "field", "create", service.service_id, name));
    const fieldId = column(created, "Field ID");
    expect(created).toEqual({
      Name: name,
      "Field ID": expect.any(String),
      "Service ID": service.service_id,
    });
    expect(await held(`${HASHMAP}/fields/${fieldId}`)).toEqual({
      field_id: fieldId,
      name,
      service_id: service.service_id,
    });

    const other = only(
      await cli.rows("hashmap", "field", "create", service.service_id, uniqueName("image")),
    );
    expect(await cli.rows("hashmap", "field", "list", service.service_id)).toEqual([
      created,
      other,
    ]);
    expect(await cli.rows("hashmap", "field", "get", fieldId)).toEqual([created]);

    await cli.quiet("hashmap", "field", "delete", fieldId);
    expect((await api.get(`${HASHMAP}/fields/${fieldId}`)).status).toBe(404);
    expect(await cli.rows("hashmap", "field", "list", service.service_id)).toEqual([other]);
  });

  it("prints the API's fault for a duplicate name in a service and an unknown field", async () => {
    const service = await seed.service();
    const field = await seed.field(service.service_id);
    expectCliFault(
      await cli.run("hashmap", "field", "create", service.service_id, field.name),
      409,
      `Field ${field.name} already exists (UUID: ${field.field_id})`,
    );
    expectCliFault(await cli.run("hashmap", "field", "get", "nope"), 404, "No such field: nope");
  });

  it("deleting a service with the CLI deletes its fields and their rules", async () => {
    const service = await seed.service();
    const field = await seed.field(service.service_id);
    const mapping = await seed.mapping({ field_id: field.field_id, value: "m1.tiny" });
    await cli.quiet("hashmap", "service", "delete", service.service_id);
    expect((await api.get(`${HASHMAP}/fields/${field.field_id}`)).status).toBe(404);
    expect((await api.get(`${HASHMAP}/mappings/${mapping.mapping_id}`)).status).toBe(404);
  });
});

describe("cloudkitty hashmap mapping", () => {
  it("creates a field mapping with value, type, group and project, and a service mapping", async () => {
    const service = await seed.service();
    const field = await seed.field(service.service_id);
    const group = await seed.group();
    const fieldMapping = only(
      await cli.rows(
        "hashmap",
        "mapping",
        "create",
        "--field-id",
        field.field_id,
        "--value",
        "m1.small",
        "-g",
        group.group_id,
        "-p",
        "tenant-a",
        "-t",
        "rate",
        "1.5",
      ),
    );
    const mappingId = column(fieldMapping, "Mapping ID");
    const stored = await held(`${HASHMAP}/mappings/${mappingId}`);
    expect(stored).toEqual({
      mapping_id: mappingId,
      value: "m1.small",
      type: "rate",
      cost: "1.5000000000000000000000000000",
      service_id: null,
      field_id: field.field_id,
      group_id: group.group_id,
      tenant_id: "tenant-a",
      ...lifecycle(),
    });
    expect(fieldMapping).toEqual(mappingRow(stored));

    // The client sends the cost as a float and `"value": null`: the cost stays exact.
    const serviceMapping = only(
      await cli.rows("hashmap", "mapping", "create", "-s", service.service_id, "0.1"),
    );
    const stored2 = await held(`${HASHMAP}/mappings/${column(serviceMapping, "Mapping ID")}`);
    expect(stored2).toMatchObject({
      value: null,
      type: "flat",
      cost: "0.1000000000000000000000000000",
      service_id: service.service_id,
      group_id: null,
      tenant_id: null,
    });
    expect(serviceMapping).toEqual(mappingRow(stored2));
    expect(await cli.rows("hashmap", "mapping", "get", mappingId)).toEqual([fieldMapping]);
  });

  it("lists with every filter the client offers", async () => {
    const service = await seed.service();
    const field = await seed.field(service.service_id);
    const group = await seed.group();
    const inGroup = await seed.mapping({
      field_id: field.field_id,
      value: "a",
      group_id: group.group_id,
    });
    const tenantA = await seed.mapping({
      field_id: field.field_id,
      value: "b",
      tenant_id: "tenant-a",
    });
    const tenantB = await seed.mapping({
      field_id: field.field_id,
      value: "c",
      tenant_id: "tenant-b",
    });
    const onService = await seed.mapping({
      service_id: service.service_id,
      group_id: group.group_id,
    });
    const list = async (...filters: string[]) =>
      ids(await cli.rows("hashmap", "mapping", "list", ...filters), "Mapping ID");
    const sorted = (...mappings: any[]) => mappings.map((mapping) => mapping.mapping_id).sort();

    expect(await list("-s", service.service_id)).toEqual(sorted(onService));
    expect(await list("--field-id", field.field_id)).toEqual(sorted(inGroup, tenantA, tenantB));
    expect(await list("-g", group.group_id)).toEqual(sorted(inGroup, onService));
    expect(await list("--field-id", field.field_id, "--no-group")).toEqual(
      sorted(tenantA, tenantB),
    );
    // As in CloudKitty, the project filters only together with --filter-tenant.
    expect(await list("--field-id", field.field_id, "-p", "tenant-a")).toEqual(
      sorted(inGroup, tenantA, tenantB),
    );
    expect(await list("--field-id", field.field_id, "-p", "tenant-a", "--filter-tenant")).toEqual(
      sorted(tenantA),
    );
    expect(await list("--field-id", field.field_id, "--filter-tenant")).toEqual(sorted(inGroup));
    expect(await list("-g", group.group_id, "-s", service.service_id)).toEqual(sorted(onService));

    const rows = await cli.rows(
      "hashmap",
      "mapping",
      "list",
      "--field-id",
      field.field_id,
      "-p",
      "tenant-a",
      "--filter-tenant",
    );
    expect(rows).toEqual([mappingRow(tenantA)]);
  });

  it("updates a mapping with one PUT, and the API holds the change", async () => {
    const service = await seed.service();
    const field = await seed.field(service.service_id);
    const group = await seed.group();
    const mapping = await seed.mapping({
      field_id: field.field_id,
      value: "m1.small",
      type: "rate",
      tenant_id: "tenant-a",
    });
    const { rows, requests } = await onTheWire(() =>
      cli.rows(
        "hashmap",
        "mapping",
        "update",
        mapping.mapping_id,
        "--cost",
        "2.25",
        "--value",
        "m1.large",
        "-g",
        group.group_id,
        "-p",
        "tenant-b",
      ),
    );
    // The client reads the mapping, PUTs it whole to the collection, reads it again.
    expect(requests).toEqual([
      `GET ${HASHMAP}/mappings/${mapping.mapping_id}`,
      `PUT ${HASHMAP}/mappings/`,
      `GET ${HASHMAP}/mappings/${mapping.mapping_id}`,
    ]);
    const stored = await held(`${HASHMAP}/mappings/${mapping.mapping_id}`);
    expect(stored).toEqual({
      ...mapping,
      value: "m1.large",
      cost: "2.2500000000000000000000000000",
      group_id: group.group_id,
      tenant_id: "tenant-b",
      updated_by: "noauth",
    });
    expect(rows).toEqual([mappingRow(stored)]);
  });

  it("updates the cost of a service mapping created without a value", async () => {
    const service = await seed.service();
    const mapping = await seed.mapping({ service_id: service.service_id, cost: "5" });
    expect(mapping.value).toBe("");
    const rows = await cli.rows("hashmap", "mapping", "update", mapping.mapping_id, "--cost", "6");
    expect(await held(`${HASHMAP}/mappings/${mapping.mapping_id}`)).toEqual({
      ...mapping,
      cost: "6.0000000000000000000000000000",
      updated_by: "noauth",
    });
    expect(rows[0]).toMatchObject({ Cost: "6.0000000000000000000000000000", Value: "" });
  });

  it("deletes a mapping, and prints the API's fault for an unknown one", async () => {
    const service = await seed.service();
    const mapping = await seed.mapping({ service_id: service.service_id });
    await cli.quiet("hashmap", "mapping", "delete", mapping.mapping_id);
    // A soft delete (CloudKitty master, docs/lifecycle.md): shown marked deleted, listed no more.
    expect(await held(`${HASHMAP}/mappings/${mapping.mapping_id}`)).toMatchObject({
      deleted: expect.any(String),
      deleted_by: "noauth",
    });
    expect(await cli.rows("hashmap", "mapping", "list", "-s", service.service_id)).toEqual([]);
    expectCliFault(
      await cli.run("hashmap", "mapping", "delete", mapping.mapping_id),
      404,
      `No such mapping: ${mapping.mapping_id}`,
    );
    expectCliFault(
      await cli.run("hashmap", "mapping", "get", "nope"),
      404,
      "No such mapping: nope",
    );
  });

  it("prints the API's fault for a duplicate mapping and leaves the existing one alone", async () => {
    const service = await seed.service();
    const field = await seed.field(service.service_id);
    const existing = await seed.mapping({ field_id: field.field_id, value: "m1.small" });
    const result = await cli.run(
      "hashmap",
      "mapping",
      "create",
      "--field-id",
      field.field_id,
      "--value",
      "m1.small",
      "3",
    );
    expect(result.exitCode).toBe(1);
    expect(cliFault(result).status).toBe(409);
    expect((await held(`${HASHMAP}/mappings`, { field_id: field.field_id })).mappings).toEqual([
      existing,
    ]);
  });
});

describe("cloudkitty hashmap threshold", () => {
  it("creates field and service thresholds, lists with every filter, and gets one", async () => {
    const service = await seed.service();
    const field = await seed.field(service.service_id);
    const group = await seed.group();
    const onField = only(
      await cli.rows(
        "hashmap",
        "threshold",
        "create",
        "--field-id",
        field.field_id,
        "-g",
        group.group_id,
        "-p",
        "tenant-a",
        "-t",
        "rate",
        "10",
        "0.5",
      ),
    );
    const thresholdId = column(onField, "Threshold ID");
    const stored = await held(`${HASHMAP}/thresholds/${thresholdId}`);
    expect(stored).toEqual({
      threshold_id: thresholdId,
      level: "10.00000000",
      type: "rate",
      cost: "0.5000000000000000000000000000",
      service_id: null,
      field_id: field.field_id,
      group_id: group.group_id,
      tenant_id: "tenant-a",
      ...lifecycle(),
    });
    expect(onField).toEqual(thresholdRow(stored));

    const onService = only(
      await cli.rows("hashmap", "threshold", "create", "-s", service.service_id, "100", "3"),
    );
    expect(onService).toMatchObject({
      Level: "100.00000000",
      Cost: "3.0000000000000000000000000000",
      Type: "flat",
      "Group ID": null,
      "Project ID": null,
    });
    const untenanted = await seed.threshold({ field_id: field.field_id, level: "20" });

    const list = async (...filters: string[]) =>
      ids(await cli.rows("hashmap", "threshold", "list", ...filters), "Threshold ID");
    expect(await list("-s", service.service_id)).toEqual([onService["Threshold ID"]]);
    expect(await list("--field-id", field.field_id)).toEqual(
      [thresholdId, untenanted.threshold_id].sort(),
    );
    expect(await list("-g", group.group_id)).toEqual([thresholdId]);
    expect(await list("--field-id", field.field_id, "--no-group")).toEqual([
      untenanted.threshold_id,
    ]);
    expect(await list("--field-id", field.field_id, "-p", "tenant-a", "--filter-tenant")).toEqual([
      thresholdId,
    ]);
    expect(await list("--field-id", field.field_id, "--filter-tenant")).toEqual([
      untenanted.threshold_id,
    ]);

    expect(await cli.rows("hashmap", "threshold", "get", thresholdId)).toEqual([onField]);
  });

  it("updates a threshold with one PUT, and the API holds the change", async () => {
    const service = await seed.service();
    const group = await seed.group();
    const threshold = await seed.threshold({
      service_id: service.service_id,
      level: "10",
      cost: "0.5",
      type: "rate",
    });
    const { rows, requests } = await onTheWire(() =>
      cli.rows(
        "hashmap",
        "threshold",
        "update",
        threshold.threshold_id,
        "-l",
        "20",
        "--cost",
        "0.75",
        "-g",
        group.group_id,
        "-p",
        "tenant-c",
      ),
    );
    expect(requests).toEqual([
      `GET ${HASHMAP}/thresholds/${threshold.threshold_id}`,
      `PUT ${HASHMAP}/thresholds/`,
      `GET ${HASHMAP}/thresholds/${threshold.threshold_id}`,
    ]);
    const stored = await held(`${HASHMAP}/thresholds/${threshold.threshold_id}`);
    expect(stored).toEqual({
      ...threshold,
      level: "20.00000000",
      cost: "0.7500000000000000000000000000",
      group_id: group.group_id,
      tenant_id: "tenant-c",
      updated_by: "noauth",
    });
    expect(rows).toEqual([thresholdRow(stored)]);
  });

  it("deletes a threshold, and prints the API's fault for an unknown one", async () => {
    const service = await seed.service();
    const threshold = await seed.threshold({ service_id: service.service_id, level: "1" });
    await cli.quiet("hashmap", "threshold", "delete", threshold.threshold_id);
    // A soft delete (docs/lifecycle.md): shown marked deleted, listed no more, not deleted twice.
    expect(await held(`${HASHMAP}/thresholds/${threshold.threshold_id}`)).toMatchObject({
      deleted: expect.any(String),
      deleted_by: "noauth",
    });
    expect(await cli.rows("hashmap", "threshold", "list", "-s", service.service_id)).toEqual([]);
    expectCliFault(
      await cli.run("hashmap", "threshold", "delete", threshold.threshold_id),
      404,
      `No such threshold: ${threshold.threshold_id}`,
    );
  });
});

describe("cloudkitty hashmap group", () => {
  /** A group with a field mapping and a service threshold in it. */
  async function groupWithRules() {
    const service = await seed.service();
    const field = await seed.field(service.service_id);
    const created = only(
      await cli.rows("hashmap", "group", "create", uniqueName("instance-uptime")),
    );
    const groupId = column(created, "Group ID");
    const mapping = await seed.mapping({
      field_id: field.field_id,
      value: "m1.small",
      group_id: groupId,
    });
    const threshold = await seed.threshold({
      service_id: service.service_id,
      level: "5",
      group_id: groupId,
    });
    return { created, groupId, mapping, threshold };
  }

  it("creates and lists groups, and lists a group's mappings and thresholds", async () => {
    const { created, groupId, mapping, threshold } = await groupWithRules();
    expect(created).toEqual({
      Name: expect.stringMatching(/^instance-uptime-/),
      "Group ID": expect.any(String),
    });
    expect(await held(`${HASHMAP}/groups/${groupId}`)).toEqual({
      group_id: groupId,
      name: created.Name,
    });
    expect(await cli.rows("hashmap", "group", "list")).toContainEqual(created);
    expect(await cli.rows("hashmap", "group", "mappings", "get", groupId)).toEqual([
      mappingRow(mapping),
    ]);
    expect(await cli.rows("hashmap", "group", "thresholds", "get", groupId)).toEqual([
      thresholdRow(threshold),
    ]);
    const empty = await seed.group();
    expect(await cli.rows("hashmap", "group", "mappings", "get", empty.group_id)).toEqual([]);
    expect(await cli.rows("hashmap", "group", "thresholds", "get", empty.group_id)).toEqual([]);
  });

  it("deletes a group without --recursive: its rules stay, in no group", async () => {
    const { created, groupId, mapping, threshold } = await groupWithRules();
    await cli.quiet("hashmap", "group", "delete", groupId);
    expect((await api.get(`${HASHMAP}/groups/${groupId}`)).status).toBe(404);
    expect(await cli.rows("hashmap", "group", "list")).not.toContainEqual(created);
    expect(await held(`${HASHMAP}/mappings/${mapping.mapping_id}`)).toEqual({
      ...mapping,
      group_id: null,
    });
    expect(await held(`${HASHMAP}/thresholds/${threshold.threshold_id}`)).toEqual({
      ...threshold,
      group_id: null,
    });
  });

  it("deletes a group with --recursive: its rules go too", async () => {
    const { groupId, mapping, threshold } = await groupWithRules();
    await cli.quiet("hashmap", "group", "delete", "--recursive", groupId);
    expect((await api.get(`${HASHMAP}/groups/${groupId}`)).status).toBe(404);
    expect((await api.get(`${HASHMAP}/mappings/${mapping.mapping_id}`)).status).toBe(404);
    expect((await api.get(`${HASHMAP}/thresholds/${threshold.threshold_id}`)).status).toBe(404);
  });

  it("prints the API's fault for a duplicate group and an unknown one", async () => {
    const existing = await seed.group();
    expectCliFault(
      await cli.run("hashmap", "group", "create", existing.name),
      409,
      `Group ${existing.name} already exists (UUID: ${existing.group_id})`,
    );
    const unknown = "22222222-2222-4222-8222-222222222222";
    expectCliFault(
      await cli.run("hashmap", "group", "delete", unknown),
      404,
      `No such group: None (UUID: ${unknown})`,
    );
  });
});

describe("cloudkitty pyscript", () => {
  let scratch: string;
  beforeAll(() => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), "ratecard-cli-"));
  });

  it("creates scripts from inline data and from a file, lists them with and without data, gets one", async () => {
    const inline = only(
      await cli.rows("pyscript", "create", uniqueName("inline"), "print('hello')"),
    );
    expect(inline).toEqual({
      Name: expect.any(String),
      "Script ID": expect.any(String),
      Checksum: sha512("print('hello')"),
      Data: "print('hello')",
    });
    const source = "# Tarification en €, ✓ 日本\nimport decimal\n";
    const file = path.join(scratch, "rating.py");
    fs.writeFileSync(file, source, "utf8");
    const fromFile = only(await cli.rows("pyscript", "create", uniqueName("from-file"), file));
    expect(fromFile).toMatchObject({ Checksum: sha512(source), Data: source });
    expect(await held(`${PYSCRIPTS}/scripts/${column(fromFile, "Script ID")}`)).toEqual({
      script_id: fromFile["Script ID"],
      name: fromFile.Name,
      data: source,
      checksum: sha512(source),
      ...lifecycle({}, false),
    });

    const listed = await cli.rows("pyscript", "list");
    expect(listed).toContainEqual(inline);
    expect(listed).toContainEqual(fromFile);
    const withoutData = await cli.rows("pyscript", "list", "--no-data");
    expect(withoutData).toContainEqual({ ...fromFile, Data: null });
    expect(withoutData.every((row) => row.Data === null)).toBe(true);
    expect(await cli.rows("pyscript", "get", column(fromFile, "Script ID"))).toEqual([fromFile]);
  });

  it("updates a script's name and data with one PUT; the checksum follows the data", async () => {
    const script = only(await cli.rows("pyscript", "create", uniqueName("script"), "a = 1"));
    const scriptId = column(script, "Script ID");
    const newName = uniqueName("renamed");
    const { rows, requests } = await onTheWire(() =>
      cli.rows("pyscript", "update", scriptId, "-n", newName, "-d", "a = 2"),
    );
    // The client reads the script, then PUTs it; the PUT's answer is what it prints.
    expect(requests).toEqual([
      `GET ${PYSCRIPTS}/scripts/${scriptId}`,
      `PUT ${PYSCRIPTS}/scripts/${scriptId}`,
    ]);
    const stored = await held(`${PYSCRIPTS}/scripts/${scriptId}`);
    expect(stored).toEqual({
      script_id: scriptId,
      name: newName,
      data: "a = 2",
      checksum: sha512("a = 2"),
      ...lifecycle({ updated_by: "noauth" }, false),
    });
    expect(rows).toEqual([
      { Name: newName, "Script ID": scriptId, Checksum: sha512("a = 2"), Data: "a = 2" },
    ]);
  });

  it("refuses to rename a script onto another's name, and changes nothing", async () => {
    const taken = only(await cli.rows("pyscript", "create", uniqueName("taken"), "x = 1"));
    const script = only(await cli.rows("pyscript", "create", uniqueName("script"), "y = 1"));
    const scriptId = column(script, "Script ID");
    expectCliFault(
      await cli.run("pyscript", "update", scriptId, "-n", column(taken, "Name"), "-d", "y = 2"),
      409,
      `Script ${column(taken, "Name")} already exists (UUID: ${column(taken, "Script ID")})`,
    );
    expect(await held(`${PYSCRIPTS}/scripts/${scriptId}`)).toEqual({
      script_id: scriptId,
      name: script.Name,
      data: "y = 1",
      checksum: sha512("y = 1"),
      ...lifecycle({}, false),
    });
  });

  it("deletes a script, and prints the API's fault for an unknown one", async () => {
    const script = only(await cli.rows("pyscript", "create", uniqueName("doomed"), "z = 1"));
    const scriptId = column(script, "Script ID");
    await cli.quiet("pyscript", "delete", scriptId);
    expect((await api.get(`${PYSCRIPTS}/scripts/${scriptId}`)).status).toBe(404);
    expectCliFault(
      await cli.run("pyscript", "get", scriptId),
      404,
      `No such script: None (UUID: ${scriptId})`,
    );
    expectCliFault(
      await cli.run("pyscript", "delete", scriptId),
      404,
      `No such script: None (UUID: ${scriptId})`,
    );
  });
});

describe("cloudkitty module", () => {
  const moduleRow = (module: any): CliRow => ({
    Module: module.module_id,
    Enabled: module.enabled,
    Priority: module.priority,
  });

  it("lists the rating modules and gets one", async () => {
    const { modules } = await held("/v1/rating/modules");
    expect(await cli.rows("module", "list")).toEqual(modules.map(moduleRow));
    expect((await cli.rows("module", "list")).map((row) => row.Module)).toEqual([
      "hashmap",
      "noop",
      "pyscripts",
    ]);
    expect(await cli.rows("module", "get", "hashmap")).toEqual([
      moduleRow(await held("/v1/rating/modules/hashmap")),
    ]);
  });

  it("enables and disables a module and sets its priority, each with one PUT", async () => {
    // The client reads the module, PUTs it whole, reads it again (CloudKitty's 302 would make it
    // re-send the PUT).
    const wire = [
      "GET /v1/rating/modules/noop?module_id=noop",
      "PUT /v1/rating/modules/noop",
      "GET /v1/rating/modules/noop?module_id=noop",
    ];
    const enable = await onTheWire(() => cli.rows("module", "enable", "noop"));
    expect(enable.requests).toEqual(wire);
    expect(enable.rows).toEqual([{ Module: "noop", Enabled: true, Priority: 1 }]);
    expect(await held("/v1/rating/modules/noop")).toMatchObject({ enabled: true });

    const priority = await onTheWire(() => cli.rows("module", "set", "priority", "noop", "42"));
    expect(priority.requests).toEqual(wire);
    expect(priority.rows).toEqual([{ Module: "noop", Enabled: true, Priority: 42 }]);

    const disable = await onTheWire(() => cli.rows("module", "disable", "noop"));
    expect(disable.requests).toEqual(wire);
    expect(disable.rows).toEqual([{ Module: "noop", Enabled: false, Priority: 42 }]);
    expect(await held("/v1/rating/modules/noop")).toEqual({
      module_id: "noop",
      description: "Dummy test module.",
      enabled: false,
      "hot-config": false,
      priority: 42,
    });
  });

  it("prints CloudKitty's fault for an unknown module, and changes nothing when enabling one", async () => {
    expectCliFault(await cli.run("module", "get", "nope"), 404, "Module not found.");
    const before = await held("/v1/rating/modules");
    // The client itself trips over the 404 of its first GET (it prints a Python AttributeError,
    // against CloudKitty too), and never sends the PUT.
    const { result, requests } = await recordRequests(server, () =>
      cli.run("module", "enable", "nope"),
    );
    expect(result.exitCode).toBe(1);
    expect(requests.map((request) => `${request.method} ${request.status}`)).toEqual(["GET 404"]);
    expect(await held("/v1/rating/modules")).toEqual(before);
  });
});
