import net from "node:net";
import type { AddressInfo } from "node:net";
import { describe, expect, inject, it } from "vitest";
import { CloudKittyClient, CloudKittyUnreachableError, cloudKittyTarget } from "../src/index.js";

const url = inject("ckUrl");

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("probe", () => {
  it("reports CloudKitty 17 as reachable, noauth, pre-23, with its module states", async () => {
    const client = new CloudKittyClient(cloudKittyTarget({ kind: "noauth", url }));
    const report = await client.probe();
    expect(report).toMatchObject({
      reachable: true,
      auth: "noauth",
      endpoint: url,
      generation: "pre-23",
      generationEvidence: '400 Unknown argument: "is_active"',
      problem: undefined,
    });
    expect(report.modules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ module_id: "hashmap", enabled: true, hot_config: true }),
        expect.objectContaining({ module_id: "pyscripts", enabled: true }),
      ]),
    );
    expect(report.requestIds).toHaveLength(2);
    for (const id of report.requestIds) expect(id).toMatch(/^req-/);
  });

  it("reports a CloudKitty that does not answer as unreachable, without throwing", async () => {
    const port = await closedPort();
    const client = new CloudKittyClient(
      cloudKittyTarget({ kind: "noauth", url: `http://127.0.0.1:${port}` }),
    );
    const report = await client.probe();
    expect(report).toMatchObject({ reachable: false, generation: "unknown", modules: undefined });
    expect(report.problem).toContain("ECONNREFUSED");
    await expect(client.readRuleSet()).rejects.toBeInstanceOf(CloudKittyUnreachableError);
  });

  it("gives up on a peer that accepts and never answers, at the timeout", async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as AddressInfo;
    try {
      const client = new CloudKittyClient(
        cloudKittyTarget({ kind: "noauth", url: `http://127.0.0.1:${port}` }),
        { timeoutMs: 300 },
      );
      const error = await client.listServices().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CloudKittyUnreachableError);
      expect((error as CloudKittyUnreachableError).timedOut).toBe(true);
      expect((error as Error).message).toContain("no answer in time");
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
