import { expect, type Locator } from "@playwright/test";

export const UNREPORTED_METRIC =
  "The collector does not report this metric: CloudKitty will never rate it.";
export const UNREPORTED_ATTRIBUTE =
  "The collector does not report this attribute for this metric: CloudKitty will never match it.";

/** The names a text input offers (its datalist), in order; empty when it offers none. */
export async function offeredNames(input: Locator): Promise<string[]> {
  const listId = await input.getAttribute("list");
  if (!listId) return [];
  return input
    .page()
    .locator(`datalist[id="${listId}"] option`)
    .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
}

export async function expectOffered(input: Locator, names: string[]): Promise<void> {
  await expect.poll(() => offeredNames(input)).toEqual(names);
}
