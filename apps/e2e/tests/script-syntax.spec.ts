import { expect, test } from "@playwright/test";
import { PYSCRIPTS, rest, uniqueName } from "./support/api.js";
import { expectNoAxeViolations } from "./support/axe.js";
import { expectToast } from "./support/toasts.js";

test("a Python syntax error is marked as the operator types and the save is refused with its line and column", async ({
  page,
  request,
}) => {
  const name = uniqueName("broken");
  const creates: string[] = [];
  page.on("request", (sent) => {
    if (sent.method() === "POST" && sent.url().includes("pyscripts.scripts.create"))
      creates.push(sent.url());
  });
  await page.goto("/pyscripts/new");
  await page.getByLabel("Name").fill(name);
  const editor = page.locator(".cm-content");
  await editor.click();
  await page.keyboard.type("def (:");

  // The editor marks the error with the server's own check, without a save.
  const marked = page.locator(".cm-lintRange-error");
  await expect(marked).toHaveCount(1);
  await expect(page.locator(".cm-gutter-lint .cm-lint-marker-error")).toHaveCount(1);
  await marked.hover();
  await expect(page.locator(".cm-tooltip-lint")).toContainText(
    'Python syntax error at line 1, column 5: invalid syntax at "(".',
  );

  // The save is refused before anything is sent.
  await page.getByRole("button", { name: "Create script" }).click();
  const message = page
    .locator(".form-error")
    .filter({ hasText: 'Python syntax error at line 1, column 5: invalid syntax at "(".' });
  await expect(message).toBeVisible();
  await expect(editor).toHaveAttribute("aria-invalid", "true");
  // Focus goes to the editor, with the cursor on the error.
  await expect(editor).toBeFocused();
  await page.keyboard.type("price");
  await expect(editor).toContainText("def price(");
  await expectNoAxeViolations(page);
  expect(creates).toEqual([]);
  expect((await rest.scripts(request)).map((script) => script.name)).not.toContain(name);

  // Fixed, it saves.
  await editor.click();
  await page.keyboard.press("Control+A");
  await page.keyboard.type("def price(item):\n    return 0");
  await expect(marked).toHaveCount(0);
  await page.getByRole("button", { name: "Create script" }).click();
  await expectToast(page, `Script “${name}” created`);
  await expect(page.getByRole("heading", { name, level: 1 })).toBeVisible();
  expect(creates).toHaveLength(1);
});

test("the server refuses a script that does not parse, whatever the client", async ({
  request,
}) => {
  const answer = await request.post(`${PYSCRIPTS}/scripts`, {
    data: { name: uniqueName("raw"), data: "x = 1\ndef (:" },
  });
  expect(answer.status()).toBe(400);
  expect((await answer.json()) as unknown).toMatchObject({
    faultcode: "Client",
    faultstring: expect.stringContaining(
      'Python syntax error at line 2, column 5: invalid syntax at "(".',
    ),
  });
});

test("leaving a script with unsaved changes asks first", async ({ page, request }) => {
  const name = uniqueName("guarded");
  const created = await request.post(`${PYSCRIPTS}/scripts`, {
    data: { name, data: "x = 1\n" },
  });
  const { script_id: scriptId } = (await created.json()) as { script_id: string };
  await page.goto(`/pyscripts/${scriptId}`);
  await expect(page.getByRole("heading", { name, level: 1 })).toBeVisible();
  await expectNoAxeViolations(page);
  await page.locator(".cm-content").click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("y = 2");

  const breadcrumb = page
    .getByRole("navigation", { name: "Breadcrumb" })
    .getByRole("link", { name: "Scripts" });
  await breadcrumb.click();
  const dialog = page.getByRole("alertdialog", { name: "Discard your changes?" });
  await expect(dialog).toBeVisible();
  await expectNoAxeViolations(page, { include: "[role=alertdialog]" });
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page).toHaveURL(new RegExp(`/pyscripts/${scriptId}$`));
  await expect(page.locator(".cm-content")).toContainText("y = 2");

  await breadcrumb.click();
  await dialog.getByRole("button", { name: "Discard changes" }).click();
  await expect(page).toHaveURL(/\/pyscripts$/);
  expect((await rest.scripts(request)).find((script) => script.name === name)?.data).toBe(
    "x = 1\n",
  );
});
