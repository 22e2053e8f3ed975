import { AxeBuilder } from "@axe-core/playwright";
import { expect, type Page } from "@playwright/test";

/**
 * Runs axe-core on what the page shows now (or on `include`, e.g. an open dialog) and fails with
 * each violation's rule, impact and first elements, so a failure says what to fix.
 */
export async function expectNoAxeViolations(
  page: Page,
  options: { include?: string } = {},
): Promise<void> {
  // Colours are checked as rendered: a toast or dialog still fading in has a contrast near 1:1.
  // Wait (briefly) for finite animations and transitions to end; endless ones (spinners) stay.
  await page.waitForFunction(
    () =>
      document
        .getAnimations()
        .every(
          (animation) =>
            animation.playState !== "running" ||
            animation.effect?.getTiming().iterations === Infinity,
        ),
    undefined,
    { timeout: 5_000 },
  );
  let builder = new AxeBuilder({ page });
  if (options.include) builder = builder.include(options.include);
  const { violations } = await builder.analyze();
  const report = violations.map(
    (violation) =>
      `${violation.id} (${violation.impact ?? "?"}): ${violation.help}\n` +
      violation.nodes
        .slice(0, 3)
        .map((node) => `    ${node.target.join(" ")}: ${node.failureSummary ?? ""}`)
        .join("\n"),
  );
  expect(report, `axe violations on ${page.url()}`).toEqual([]);
}
