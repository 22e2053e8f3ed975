import { describe, expect, inject, it } from "vitest";
import { CloudKittyClient, cloudKittyTarget } from "../src/index.js";

const url = inject("ckUrl");

describe("listMetrics", () => {
  it("reads CloudKitty 17's collected metrics with their metadata (Debian's metrics.yml)", async () => {
    const client = new CloudKittyClient(cloudKittyTarget({ kind: "noauth", url }));
    const metrics = await client.listMetrics();
    // CloudKitty lists a metric's metadata in no stable order.
    const byId = new Map(metrics!.map((m) => [m.metric_id, { ...m, metadata: m.metadata.sort() }]));
    expect(byId.get("instance")).toEqual({
      metric_id: "instance",
      metadata: ["flavor_id", "flavor_name", "vcpus"],
      unit: "instance",
    });
    expect(byId.get("volume.size")).toEqual({
      metric_id: "volume.size",
      metadata: ["volume_type"],
      unit: "GiB",
    });
  });
});
