// Each page's title comes from what the page itself shows: its <h1>, and for a record the kind the
// line above it names ("Service", "Field of instance"). Pages need no code of their own for it.

export const PRODUCT = "Ratecard";

const SEPARATOR = " · ";

/** "instance · Service · Ratecard", "Rules explorer · Ratecard", or "Ratecard" while nothing is shown. */
export function composePageTitle(heading: string | null | undefined, eyebrow?: string | null) {
  const parts = [heading, eyebrow]
    .map((part) => part?.replace(/\s+/g, " ").trim() ?? "")
    .filter((part, index, all) => part !== "" && (index === 0 || part !== all[0]));
  return [...parts, PRODUCT].join(SEPARATOR);
}

/** The page's heading and the record kind above it, as the page shows them; null while loading. */
export function readPageHeading(container: ParentNode): {
  heading: HTMLElement;
  title: string;
} | null {
  const heading = container.querySelector<HTMLElement>("h1");
  if (!heading || !heading.textContent?.trim()) return null;
  const eyebrow = heading.parentElement?.querySelector(":scope > .eyebrow")?.textContent;
  return { heading, title: composePageTitle(heading.textContent, eyebrow) };
}

/**
 * Whether moving focus to the new page's heading takes nothing from the operator: focus is still
 * where it was when the navigation started (the link followed) or nowhere (the body, or the link
 * went away with the old page). A page that focused a field of its own (autofocus) keeps it.
 */
export function mayMoveFocus(
  active: Element | null,
  atNavigation: Element | null,
  body: Element | null,
): boolean {
  return active === null || active === body || active === atNavigation;
}
