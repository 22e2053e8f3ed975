import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from "vitest";
import { CloudKittyClient, CloudKittyFaultError, cloudKittyTarget } from "../src/index.js";
import { resetCloudKitty } from "./support/cloudkitty.js";
import { startRecordingProxy } from "./support/recording-proxy.js";

const url = inject("ckUrl");
let proxy: Awaited<ReturnType<typeof startRecordingProxy>>;
let client: CloudKittyClient;
/** Reads straight from CloudKitty, past the proxy. */
const direct = new CloudKittyClient(cloudKittyTarget({ kind: "noauth", url }));

beforeAll(async () => {
  await resetCloudKitty();
  proxy = await startRecordingProxy(url);
  client = new CloudKittyClient(cloudKittyTarget({ kind: "noauth", url: proxy.url }));
});
afterAll(() => proxy.close());
beforeEach(() => {
  proxy.requests.length = 0;
});

describe("write primitives against CloudKitty 17", () => {
  it("creates a service, field, group and rules with costs and levels sent as JSON strings", async () => {
    const service = await client.createService("network.bw.out");
    expect(service).toMatchObject({ status: 201, object: { name: "network.bw.out" } });
    expect(service.requestId).toMatch(/^req-/);
    expect(service.location).toBe(
      `${proxy.url}/v1/rating/module_config/hashmap/services/${service.object.service_id}`,
    );
    const field = await client.createField({ service_id: service.object.service_id, name: "zone" });
    const group = await client.createGroup("traffic");
    const mapping = await client.createMapping({
      field_id: field.object.field_id,
      value: "eu-west",
      type: "rate",
      cost: "0.00000001",
      group_id: group.object.group_id,
      tenant_id: "tenant-a",
    });
    const threshold = await client.createThreshold({
      service_id: service.object.service_id,
      level: "1024.5",
      cost: "123456789.123456789",
    });
    expect(mapping.object).toMatchObject({
      value: "eu-west",
      type: "rate",
      field_id: field.object.field_id,
      service_id: null,
      group_id: group.object.group_id,
      tenant_id: "tenant-a",
    });
    expect(Number(mapping.object.cost)).toBe(0.00000001);
    expect(threshold.object).toMatchObject({ level: "1024.50000000", type: "flat" });

    const posts = proxy.requests.filter((request) => request.method === "POST");
    const mappingBody = JSON.parse(posts[3]!.body);
    expect(mappingBody.cost).toBe("0.00000001");
    expect(posts[4]!.body).toContain('"cost":"123456789.123456789"');
    expect(posts[4]!.body).toContain('"level":"1024.5"');
  });

  it("takes a PUT's 302 as success and does not follow it", async () => {
    const service = (await client.createService("compute")).object;
    const mapping = (await client.createMapping({ service_id: service.service_id, cost: "1" }))
      .object;
    proxy.requests.length = 0;

    const { mapping_id: mappingId, ...rest } = mapping;
    const outcome = await client.updateMapping(mappingId, { ...rest, cost: "2.5", type: "rate" });
    expect(outcome).toMatchObject({ status: 302, object: undefined });
    expect(outcome.location).toContain(`/hashmap/mappings/${mappingId}`);
    expect(outcome.requestId).toMatch(/^req-/);
    // One PUT, and no GET or second PUT after it (the real CLI re-sends it 31 times).
    expect(proxy.requests.map((request) => request.method)).toEqual(["PUT"]);
    expect(JSON.parse(proxy.requests[0]!.body)).toMatchObject({
      mapping_id: mappingId,
      cost: "2.5",
      type: "rate",
    });
    expect(await direct.getMapping(mappingId)).toMatchObject({
      cost: "2.5000000000000000000000000000",
      type: "rate",
    });

    const threshold = (
      await client.createThreshold({ service_id: service.service_id, level: "10", cost: "1" })
    ).object;
    const { threshold_id: thresholdId, ...thresholdRest } = threshold;
    const updated = await client.updateThreshold(thresholdId, {
      ...thresholdRest,
      level: "20",
      cost: "0.5",
      tenant_id: "tenant-x",
    });
    expect(updated.status).toBe(302);
    expect(await direct.getThreshold(thresholdId)).toMatchObject({
      level: "20.00000000",
      cost: "0.5000000000000000000000000000",
      tenant_id: "tenant-x",
    });
  });

  it("counts a DELETE answered 404 as done", async () => {
    const service = (await client.createService("image.size")).object;
    const mapping = (await client.createMapping({ service_id: service.service_id, cost: "1" }))
      .object;
    expect(await client.deleteMapping(mapping.mapping_id)).toMatchObject({
      status: 204,
      alreadyAbsent: false,
    });
    const again = await client.deleteMapping(mapping.mapping_id);
    expect(again).toMatchObject({ status: 404, alreadyAbsent: true });
    expect(again.requestId).toMatch(/^req-/);
    expect(await client.deleteService(service.service_id)).toMatchObject({ status: 204 });
    expect(await client.deleteService(service.service_id)).toMatchObject({ alreadyAbsent: true });
  });

  it("deletes a group without a recursive parameter, which keeps its rules", async () => {
    const empty = (await client.createGroup("empty")).object;
    const used = (await client.createGroup("used")).object;
    const service = (await client.createService("volume.size")).object;
    const rule = (
      await client.createMapping({
        service_id: service.service_id,
        cost: "3",
        group_id: used.group_id,
      })
    ).object;
    proxy.requests.length = 0;

    expect(await client.deleteGroup(empty.group_id)).toMatchObject({ status: 204 });
    expect(await client.deleteGroup(used.group_id)).toMatchObject({ status: 204 });
    expect(proxy.requests.map((request) => `${request.method} ${request.url}`)).toEqual([
      `DELETE /v1/rating/module_config/hashmap/groups/${empty.group_id}`,
      `DELETE /v1/rating/module_config/hashmap/groups/${used.group_id}`,
    ]);
    expect(await direct.getMapping(rule.mapping_id)).toMatchObject({ group_id: null });
    expect((await direct.listGroups()).map((group) => group.name)).not.toContain("empty");

    const recursive = (await client.createGroup("recursive")).object;
    const grouped = (
      await client.createMapping({
        service_id: service.service_id,
        cost: "4",
        group_id: recursive.group_id,
      })
    ).object;
    await client.deleteGroup(recursive.group_id, { recursive: true });
    expect(proxy.requests.at(-1)!.url).toContain("?recursive=True");
    expect(await client.deleteMapping(grouped.mapping_id)).toMatchObject({ alreadyAbsent: true });
  });

  it("creates, updates and deletes scripts", async () => {
    const created = await client.createScript({ name: "policy", data: "a = 1\n" });
    expect(created).toMatchObject({ status: 201, object: { name: "policy", data: "a = 1\n" } });
    const updated = await client.updateScript(created.object.script_id, {
      name: "policy",
      data: "a = 2\n",
    });
    expect(updated.object).toMatchObject({ script_id: created.object.script_id, data: "a = 2\n" });
    expect(updated.object.checksum).not.toBe(created.object.checksum);
    expect(await client.deleteScript(created.object.script_id)).toMatchObject({ status: 204 });
    expect(await client.deleteScript(created.object.script_id)).toMatchObject({
      alreadyAbsent: true,
    });
  });

  it("sets a module's priority and state", async () => {
    expect(await client.updateModule("pyscripts", { priority: 7 })).toMatchObject({ status: 302 });
    expect(await client.updateModule("pyscripts", { enabled: false })).toMatchObject({
      status: 302,
    });
    expect(await direct.getModule("pyscripts")).toMatchObject({ enabled: false, priority: 7 });
    await client.updateModule("pyscripts", { enabled: true, priority: 1 });
    expect(await direct.getModule("pyscripts")).toMatchObject({ enabled: true, priority: 1 });
    expect(JSON.parse(proxy.requests.at(-1)!.body)).toEqual({
      module_id: "pyscripts",
      enabled: true,
      priority: 1,
    });
  });

  it("raises CloudKitty's fault with its faultstring, status and request id", async () => {
    await client.createService("duplicated");
    const error = await client.createService("duplicated").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CloudKittyFaultError);
    const fault = error as CloudKittyFaultError;
    expect(fault.status).toBe(409);
    expect(fault.faultcode).toBe("Client");
    expect(fault.faultstring).toMatch(/^Service duplicated already exists/);
    expect(fault.requestId).toMatch(/^req-/);
    expect(fault.message).toContain(fault.requestId);
  });

  it("refuses a cost that is not decimal text before sending anything", async () => {
    const service = (await client.createService("rejects")).object;
    proxy.requests.length = 0;
    expect(() => client.createMapping({ service_id: service.service_id, cost: "1e400x" })).toThrow(
      TypeError,
    );
    expect(() =>
      client.createMapping({ service_id: service.service_id, cost: 0.5 as unknown as string }),
    ).toThrow(TypeError);
    expect(proxy.requests).toEqual([]);
  });
});
