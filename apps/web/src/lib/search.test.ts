import { describe, expect, it } from "vitest";
import { parseSearch, stringifySearch } from "./search";

describe("query string helpers", () => {
  it("keeps every value as text, so a numeric tenant id stays a string", () => {
    expect(parseSearch("?tenant_id=123&q=m1.small&no_group=1")).toEqual({
      tenant_id: "123",
      q: "m1.small",
      no_group: "1",
    });
  });

  it("writes flags as 1 and leaves out defaults", () => {
    expect(
      stringifySearch({
        no_group: true,
        no_tenant: false,
        q: "",
        kind: undefined,
        tenant_id: "a b",
      }),
    ).toBe("?no_group=1&tenant_id=a+b");
    expect(stringifySearch({})).toBe("");
  });

  it("round-trips", () => {
    const search = { service_id: "2f1c", sort: "-cost", q: "ssd & hdd" };
    expect(parseSearch(stringifySearch(search))).toEqual(search);
  });
});
