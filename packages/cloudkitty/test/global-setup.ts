import type { TestProject } from "vitest/node";
import { CK_URL, startCloudKitty, stopCloudKitty } from "./support/cloudkitty.js";

declare module "vitest" {
  export interface ProvidedContext {
    ckUrl: string;
  }
}

/** One real CloudKitty 17 for the whole run, stopped after it. */
export default async function setup(project: TestProject) {
  await startCloudKitty();
  project.provide("ckUrl", CK_URL);
  return async () => {
    await stopCloudKitty();
  };
}
