import { createHash } from "node:crypto";
import { expect, test } from "@playwright/test";
import type { TScript } from "@ratecard/validators";
import { PYSCRIPTS, rest, uniqueName } from "./support/api.js";
import { saveScreen } from "./support/screens.js";
import { expectToast } from "./support/toasts.js";

const sha512 = (text: string) => createHash("sha512").update(text, "utf8").digest("hex");

const SOURCE = `# Ten percent off every instance hour.
for service, items in data['usage'].items():
    for item in items:
        if service == 'instance':
            item['rating'] = {'price': item['vol']['qty'] * 0.9}
`;

test("a script is created from an uploaded file, edited in the code editor and deleted", async ({
  page,
  request,
}) => {
  const fileBase = uniqueName("discount");
  await page.goto("/pyscripts");
  await page.getByRole("link", { name: "Create script", exact: true }).click();
  await expect(page.getByRole("heading", { name: "New script" })).toBeVisible();
  await page.getByLabel("Load the script source from a file").setInputFiles({
    name: `${fileBase}.py`,
    mimeType: "text/x-python",
    buffer: Buffer.from(SOURCE, "utf8"),
  });
  await expect(page.getByText(`${fileBase}.py (6 lines) loaded into the editor`)).toBeVisible();
  await expect(page.getByLabel("Name")).toHaveValue(fileBase);
  await expect(page.locator(".cm-content")).toContainText("Ten percent off every instance hour.");
  await page.getByRole("button", { name: "Create script" }).click();
  await expectToast(page, `Script “${fileBase}” created`);
  await expect(page.getByRole("heading", { name: fileBase, level: 1 })).toBeVisible();
  await expect(page.getByLabel("Checksum")).toHaveText(sha512(SOURCE));

  const created = (await rest.scripts(request)).find((script) => script.name === fileBase)!;
  expect(created).toMatchObject({ data: SOURCE, checksum: sha512(SOURCE) });
  await expect(page).toHaveURL(new RegExp(`/pyscripts/${created.script_id}$`));

  // Edit: rename it and append a line in the editor.
  const renamed = `${fileBase}-v2`;
  await page.getByLabel("Name").fill(renamed);
  await page.locator(".cm-content").click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("# reviewed");
  await saveScreen(page, "script-page");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expectToast(page, `Script “${renamed}” saved`);
  const edited = `${SOURCE}# reviewed`;
  await expect(page.getByLabel("Checksum")).toHaveText(sha512(edited));
  expect(await rest.get<TScript>(request, `${PYSCRIPTS}/scripts/${created.script_id}`)).toEqual({
    ...created,
    script_id: created.script_id,
    name: renamed,
    data: edited,
    checksum: sha512(edited),
    // CloudKitty master's lifecycle keys (docs/lifecycle.md): the edit is recorded as noauth's.
    updated_by: "noauth",
  });

  // The list shows it without loading sources; delete it from there.
  await page
    .getByRole("navigation", { name: "Breadcrumb" })
    .getByRole("link", { name: "Scripts" })
    .click();
  await expect(page.getByRole("link", { name: renamed })).toBeVisible();
  await saveScreen(page, "scripts-list");
  await page.getByRole("button", { name: `Delete script ${renamed}` }).click();
  const dialog = page.getByRole("alertdialog", { name: `Delete script “${renamed}”?` });
  await dialog.getByRole("button", { name: "Delete script" }).click();
  await expectToast(page, `Script “${renamed}” deleted`);
  await expect(page.getByRole("link", { name: renamed })).toHaveCount(0);
  expect(await rest.status(request, `${PYSCRIPTS}/scripts/${created.script_id}`)).toBe(404);
});

test("a script name that is taken is refused next to the name", async ({ page, request }) => {
  const name = uniqueName("taken");
  await request.post(`${PYSCRIPTS}/scripts`, { data: { name, data: "pass\n" } });
  await page.goto("/pyscripts/new");
  await page.getByLabel("Name").fill(name);
  await page.locator(".cm-content").click();
  await page.keyboard.type("pass");
  await page.getByRole("button", { name: "Create script" }).click();
  await expect(
    page.locator(".form-error").filter({ hasText: `Script ${name} already exists.` }),
  ).toBeVisible();
  expect((await rest.scripts(request)).filter((script) => script.name === name)).toHaveLength(1);
});
