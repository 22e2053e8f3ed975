import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    ckUrl: string;
  }
}

/** One real CloudKitty 17 (packages/cloudkitty's helpers, on port 8941), stopped after the run. */
export default async function setup(project: TestProject) {
  const { CK_URL, startCloudKitty, stopCloudKitty } =
    await import("../../cloudkitty/test/support/cloudkitty.js");
  await startCloudKitty();
  project.provide("ckUrl", CK_URL);
  return async () => {
    await stopCloudKitty();
  };
}
