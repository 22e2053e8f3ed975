import { describe, expect, it } from "vitest";
import { composePageTitle, mayMoveFocus } from "./page-title";

describe("page titles", () => {
  it("name what the page shows, then the product", () => {
    expect(composePageTitle("Rules explorer")).toBe("Rules explorer · Ratecard");
    expect(composePageTitle("instance", "Service")).toBe("instance · Service · Ratecard");
    expect(composePageTitle("flavor_id", "Field of instance")).toBe(
      "flavor_id · Field of instance · Ratecard",
    );
  });

  it("collapse white space and skip what is empty or repeated", () => {
    expect(composePageTitle("  Price\n   preview ", "")).toBe("Price preview · Ratecard");
    expect(composePageTitle("Script", "Script")).toBe("Script · Ratecard");
    expect(composePageTitle(null)).toBe("Ratecard");
  });
});

describe("moving focus to the new page's heading", () => {
  const body = { id: "body" } as unknown as Element;
  const link = { id: "link" } as unknown as Element;
  const field = { id: "field" } as unknown as Element;

  it("happens when focus stayed on the link followed, or fell back to the page", () => {
    expect(mayMoveFocus(link, link, body)).toBe(true);
    expect(mayMoveFocus(body, link, body)).toBe(true);
    expect(mayMoveFocus(null, link, body)).toBe(true);
  });

  it("leaves a field the new page focused itself", () => {
    expect(mayMoveFocus(field, link, body)).toBe(false);
  });
});
