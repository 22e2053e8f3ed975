import { cloudkittyCli } from "../../../cloudkitty/test/support/cloudkitty.js";

// A CloudKitty seeded with its own CLI with one of everything an import must carry over:
// services, fields, groups, flat and rate mappings, tenant mappings, thresholds, a script, module
// priorities, and two tenant-less duplicates (one of a field, one of a service). Shared with the
// server's HTTP tests (apps/server/test/targets.test.ts).

export interface Seeded {
  services: Record<"compute" | "volume", string>;
  fields: Record<"flavor" | "volumeType", string>;
  groups: Record<"uptime" | "storage", string>;
  /** By a short name; the duplicates' ids under dupHdd and dupService. */
  mappings: Record<string, string>;
  thresholds: Record<string, string>;
  script: string;
  dupHdd: [string, string];
  dupService: [string, string];
}

export async function seedCloudKitty(url: string): Promise<Seeded> {
  const one = async (...args: string[]) =>
    ((await cloudkittyCli(url, [...args, "-f", "json"])) as Record<string, string>[])[0]!;
  const id = async (key: string, ...args: string[]) => (await one(...args))[key]!;
  const mapping = (...args: string[]) => id("Mapping ID", "hashmap", "mapping", "create", ...args);
  const threshold = (...args: string[]) =>
    id("Threshold ID", "hashmap", "threshold", "create", ...args);

  const compute = await id("Service ID", "hashmap", "service", "create", "compute");
  const volume = await id("Service ID", "hashmap", "service", "create", "volume.size");
  const flavor = await id("Field ID", "hashmap", "field", "create", compute, "flavor_name");
  const volumeType = await id("Field ID", "hashmap", "field", "create", volume, "volume_type");
  const uptime = await id("Group ID", "hashmap", "group", "create", "instance_uptime");
  const storage = await id("Group ID", "hashmap", "group", "create", "storage");
  const mappings = {
    tiny: await mapping("--field-id", flavor, "--value", "m1.tiny", "-g", uptime, "0.00000001"),
    small: await mapping("--field-id", flavor, "--value", "m1.small", "-g", uptime, "0.5"),
    smallTenant: await mapping(
      "--field-id",
      flavor,
      "--value",
      "m1.small",
      "-p",
      "tenant-a",
      "-g",
      uptime,
      "0.25",
    ),
    ssdRate: await mapping("--field-id", volumeType, "--value", "ssd", "-t", "rate", "2"),
    computeBase: await mapping("-s", compute, "-g", uptime, "1"),
  };
  // CloudKitty accepts the same tenant-less rule twice (SQL NULLs compare distinct).
  const dupHdd: [string, string] = [
    await mapping("--field-id", volumeType, "--value", "hdd", "0.1"),
    await mapping("--field-id", volumeType, "--value", "hdd", "0.2"),
  ];
  const dupService: [string, string] = [
    await mapping("-s", volume, "3"),
    await mapping("-s", volume, "3"),
  ];
  const thresholds = {
    volumeTen: await threshold("-s", volume, "-t", "rate", "10", "0.05"),
    typeHundred: await threshold("--field-id", volumeType, "-g", storage, "100.5", "3"),
    computeTenant: await threshold("-s", compute, "-p", "tenant-a", "0", "0.00000001"),
  };
  const script = await id("Script ID", "pyscript", "create", "discount", "data = 1\n# exact\n");
  await cloudkittyCli(url, ["module", "set", "priority", "hashmap", "5"]);
  await cloudkittyCli(url, ["module", "set", "priority", "pyscripts", "3"]);
  return {
    services: { compute, volume },
    fields: { flavor, volumeType },
    groups: { uptime, storage },
    mappings,
    thresholds,
    script,
    dupHdd,
    dupService,
  };
}
