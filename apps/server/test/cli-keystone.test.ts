import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cliFault,
  cliVersion,
  column,
  createCliWith,
  type Cli,
  type CliResult,
  type CliRow,
} from "./support/cli.js";
import { HASHMAP, PYSCRIPTS, type Client } from "./support/client.js";
import { uniqueName } from "./support/hashmap.js";
import { userToken } from "./support/keystone.js";
import {
  cloudkittyMetricsFile,
  createTokenClient,
  keystoneCliConnection,
  keystoneServerEnv,
  leaseCatalog,
  OPENSTACK_START_TIMEOUT_MS,
  startOpenStack,
  type CatalogLease,
} from "./support/openstack.js";
import { startServer, type TestServer } from "./support/server.js";

// The real client (python-cloudkittyclient) as operators run it in a cloud: password auth against
// a real Keystone, the rating endpoint found in Keystone's catalog, Ratecard validating the token
// with Keystone and applying CloudKitty's policy. cli.test.ts covers what each command prints; this
// file proves every command gets through Keystone as an admin, and that other roles are refused.
//
// CLI_KEYSTONE_RATING_URL=<url> runs the same tests against another rating API already behind the
// same Keystone, e.g. the real CloudKitty of ck-keystone-start.sh (http://127.0.0.1:8897).

const otherRatingApi = process.env.CLI_KEYSTONE_RATING_URL;

let server: TestServer | undefined;
let catalog: CatalogLease | undefined;
let ratingUrl: string;
let api: Client;
let admin: Cli;
beforeAll(async () => {
  // No skip: without the client or the OpenStack reference scripts these tests fail, saying why.
  await cliVersion();
  await startOpenStack();
  if (otherRatingApi) {
    ratingUrl = otherRatingApi;
  } else {
    server = await startServer({
      env: { ...keystoneServerEnv(), METRICS_FILE: cloudkittyMetricsFile() },
    });
    ratingUrl = server.baseUrl;
  }
  catalog = await leaseCatalog(ratingUrl);
  api = createTokenClient(ratingUrl, (await userToken("rating-admin")).token);
  admin = createCliWith(keystoneCliConnection("rating-admin"));
}, OPENSTACK_START_TIMEOUT_MS);
afterAll(async () => {
  await catalog?.release();
  await server?.stop();
});

function only(rows: CliRow[]): CliRow {
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

/** What the rating API holds at `path`, read over REST with a rating-admin token. */
async function held(path: string, query?: Record<string, string>): Promise<any> {
  const answer = await api.get(path, query ? { query } : undefined);
  expect(answer.status, answer.text).toBe(200);
  return answer.body;
}

async function absent(path: string): Promise<void> {
  expect((await api.get(path)).status).toBe(404);
}

describe("cloudkitty through Keystone as rating-admin (admin on project admin)", () => {
  it("lists the mapping types", async () => {
    expect(await admin.rows("hashmap", "mapping-types", "list")).toEqual([
      { "Mapping types": "flat" },
      { "Mapping types": "rate" },
    ]);
  });

  it("creates, lists, gets and deletes services and fields", async () => {
    const service = only(await admin.rows("hashmap", "service", "create", uniqueName("compute")));
    const serviceId = column(service, "Service ID");
    expect(await held(`${HASHMAP}/services/${serviceId}`)).toEqual({
      service_id: serviceId,
      name: service.Name,
    });
    expect(await admin.rows("hashmap", "service", "list")).toContainEqual(service);
    expect(await admin.rows("hashmap", "service", "get", serviceId)).toEqual([service]);

    const field = only(await admin.rows("hashmap", "field", "create", serviceId, "flavor"));
    const fieldId = column(field, "Field ID");
    expect(await held(`${HASHMAP}/fields/${fieldId}`)).toEqual({
      field_id: fieldId,
      service_id: serviceId,
      name: "flavor",
    });
    expect(await admin.rows("hashmap", "field", "list", serviceId)).toEqual([field]);
    expect(await admin.rows("hashmap", "field", "get", fieldId)).toEqual([field]);

    await admin.quiet("hashmap", "field", "delete", fieldId);
    await absent(`${HASHMAP}/fields/${fieldId}`);
    await admin.quiet("hashmap", "service", "delete", serviceId);
    await absent(`${HASHMAP}/services/${serviceId}`);
  });

  it("creates, lists, gets, updates and deletes mappings and thresholds in a group", async () => {
    const serviceId = column(
      only(await admin.rows("hashmap", "service", "create", uniqueName("instance"))),
      "Service ID",
    );
    const fieldId = column(
      only(await admin.rows("hashmap", "field", "create", serviceId, "flavor")),
      "Field ID",
    );
    const group = only(await admin.rows("hashmap", "group", "create", uniqueName("uptime")));
    const groupId = column(group, "Group ID");
    expect(await held(`${HASHMAP}/groups/${groupId}`)).toEqual({
      group_id: groupId,
      name: group.Name,
    });
    expect(await admin.rows("hashmap", "group", "list")).toContainEqual(group);

    const mapping = only(
      await admin.rows(
        "hashmap",
        "mapping",
        "create",
        ...["--field-id", fieldId, "--value", "m1.small", "--group-id", groupId, "0.5"],
      ),
    );
    const mappingId = column(mapping, "Mapping ID");
    expect(await held(`${HASHMAP}/mappings/${mappingId}`)).toMatchObject({
      mapping_id: mappingId,
      field_id: fieldId,
      value: "m1.small",
      group_id: groupId,
      type: "flat",
    });
    expect(await admin.rows("hashmap", "mapping", "list", "--field-id", fieldId)).toEqual([
      mapping,
    ]);
    expect(await admin.rows("hashmap", "mapping", "get", mappingId)).toEqual([mapping]);
    const updatedMapping = only(
      await admin.rows("hashmap", "mapping", "update", mappingId, "--cost", "0.75"),
    );
    expect(Number(updatedMapping.Cost)).toBe(0.75);
    expect(Number((await held(`${HASHMAP}/mappings/${mappingId}`)).cost)).toBe(0.75);

    const threshold = only(
      await admin.rows(
        "hashmap",
        "threshold",
        "create",
        ...["--service-id", serviceId, "--group-id", groupId, "100", "0.1"],
      ),
    );
    const thresholdId = column(threshold, "Threshold ID");
    expect(await held(`${HASHMAP}/thresholds/${thresholdId}`)).toMatchObject({
      threshold_id: thresholdId,
      service_id: serviceId,
      group_id: groupId,
      type: "flat",
    });
    expect(await admin.rows("hashmap", "threshold", "list", "--service-id", serviceId)).toEqual([
      threshold,
    ]);
    expect(await admin.rows("hashmap", "threshold", "get", thresholdId)).toEqual([threshold]);
    const updatedThreshold = only(
      await admin.rows("hashmap", "threshold", "update", thresholdId, "--cost", "0.2"),
    );
    expect(Number(updatedThreshold.Cost)).toBe(0.2);
    expect(Number((await held(`${HASHMAP}/thresholds/${thresholdId}`)).cost)).toBe(0.2);

    expect(await admin.rows("hashmap", "group", "mappings", "get", groupId)).toEqual([
      updatedMapping,
    ]);
    expect(await admin.rows("hashmap", "group", "thresholds", "get", groupId)).toEqual([
      updatedThreshold,
    ]);

    // Rules are soft-deleted (docs/lifecycle.md): still shown, marked deleted by the Keystone
    // user (not `noauth`), and listed no more.
    await admin.quiet("hashmap", "mapping", "delete", mappingId);
    const deletedMapping = await held(`${HASHMAP}/mappings/${mappingId}`);
    expect(deletedMapping.deleted).toEqual(expect.any(String));
    expect(deletedMapping.deleted_by).toBe(deletedMapping.created_by);
    expect(deletedMapping.deleted_by).not.toBe("noauth");
    await admin.quiet("hashmap", "threshold", "delete", thresholdId);
    expect((await held(`${HASHMAP}/thresholds/${thresholdId}`)).deleted).toEqual(
      expect.any(String),
    );
    expect(await admin.rows("hashmap", "group", "mappings", "get", groupId)).toEqual([]);
    expect(await admin.rows("hashmap", "group", "thresholds", "get", groupId)).toEqual([]);
    await admin.quiet("hashmap", "group", "delete", groupId);
    await absent(`${HASHMAP}/groups/${groupId}`);
    await admin.quiet("hashmap", "service", "delete", serviceId);
  });

  it("deletes a group with its rules (--recursive)", async () => {
    const serviceId = column(
      only(await admin.rows("hashmap", "service", "create", uniqueName("volume"))),
      "Service ID",
    );
    const groupId = column(
      only(await admin.rows("hashmap", "group", "create", uniqueName("volumes"))),
      "Group ID",
    );
    const mappingId = column(
      only(
        await admin.rows(
          "hashmap",
          "mapping",
          "create",
          ...["--service-id", serviceId, "--group-id", groupId, "1"],
        ),
      ),
      "Mapping ID",
    );
    await admin.quiet("hashmap", "group", "delete", "--recursive", groupId);
    await absent(`${HASHMAP}/groups/${groupId}`);
    await absent(`${HASHMAP}/mappings/${mappingId}`);
    await admin.quiet("hashmap", "service", "delete", serviceId);
  });

  it("creates, lists, gets, updates and deletes a pyscript", async () => {
    const script = only(await admin.rows("pyscript", "create", uniqueName("script"), "a = 1"));
    const scriptId = column(script, "Script ID");
    expect(await held(`${PYSCRIPTS}/scripts/${scriptId}`)).toMatchObject({
      script_id: scriptId,
      name: script.Name,
      data: "a = 1",
    });
    expect(await admin.rows("pyscript", "list")).toContainEqual(script);
    expect(await admin.rows("pyscript", "get", scriptId)).toEqual([script]);

    const renamed = uniqueName("renamed");
    expect(
      only(await admin.rows("pyscript", "update", scriptId, "-n", renamed, "-d", "a = 2")),
    ).toMatchObject({ "Script ID": scriptId, Name: renamed, Data: "a = 2" });
    expect(await held(`${PYSCRIPTS}/scripts/${scriptId}`)).toMatchObject({
      name: renamed,
      data: "a = 2",
    });

    await admin.quiet("pyscript", "delete", scriptId);
    await absent(`${PYSCRIPTS}/scripts/${scriptId}`);
  });

  it("lists, gets, enables, disables and sets the priority of a rating module", async () => {
    expect((await admin.rows("module", "list")).map((row) => row.Module)).toEqual([
      "hashmap",
      "noop",
      "pyscripts",
    ]);
    expect(await admin.rows("module", "get", "hashmap")).toEqual([
      { Module: "hashmap", Enabled: true, Priority: 1 },
    ]);
    // pyscripts: CloudKitty's noop module is always enabled and ignores a new priority
    const before = await held("/v1/rating/modules/pyscripts");
    await admin.rows("module", "disable", "pyscripts");
    expect(await held("/v1/rating/modules/pyscripts")).toMatchObject({ enabled: false });
    await admin.rows("module", "enable", "pyscripts");
    expect(await held("/v1/rating/modules/pyscripts")).toMatchObject({ enabled: true });
    await admin.rows("module", "set", "priority", "pyscripts", "7");
    expect(await held("/v1/rating/modules/pyscripts")).toMatchObject({ priority: 7 });
    // leave it as found: the real CloudKitty keeps its state between runs
    await admin.rows("module", "set", "priority", "pyscripts", String(before.priority));
    if (!before.enabled) await admin.rows("module", "disable", "pyscripts");
  });
});

/** A refusal the client printed: exit 1 and CloudKitty's JSON fault with HTTP 403. */
function expectRefused(result: CliResult, rule: string): void {
  expect(result.exitCode, result.stdout).toBe(1);
  expect(result.stdout).toBe("");
  expect(cliFault(result)).toEqual({
    status: 403,
    body: {
      faultcode: "Client",
      faultstring: `Policy doesn't allow ${rule} to be performed.`,
      debuginfo: null,
    },
  });
}

describe.each(["demo-reader", "demo-member"] as const)(
  "cloudkitty through Keystone as %s (no admin role)",
  (user) => {
    const cli = () => createCliWith(keystoneCliConnection(user));

    it("is refused the rating modules with CloudKitty's JSON fault", async () => {
      expectRefused(await cli().run("module", "list"), "rating:list_modules");
      expectRefused(await cli().run("module", "get", "hashmap"), "rating:get_module");
    });

    it("is refused the hashmap and pyscripts configuration, and changes nothing", async () => {
      const name = uniqueName("refused");
      const attempts = [
        cli().run("hashmap", "service", "list"),
        cli().run("hashmap", "service", "create", name),
        cli().run("pyscript", "list"),
      ];
      for (const result of await Promise.all(attempts)) {
        if (otherRatingApi) {
          // The real CloudKitty answers this 403 with an HTML page unless the client asks for JSON
          // (it does not), and the client prints it verbatim: Ratecard always sends the JSON fault.
          expect(result.stderr).toContain(
            "Policy doesn&#x27;t allow rating:module_config to be performed.",
          );
          expect(result.stderr).toContain("(HTTP 403)");
        } else {
          expectRefused(result, "rating:module_config");
        }
      }
      const { services } = await held(`${HASHMAP}/services`);
      expect(services.map((service: { name: string }) => service.name)).not.toContain(name);
    });
  },
);
