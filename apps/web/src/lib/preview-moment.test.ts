import { describe, expect, it } from "vitest";
import {
  buildPreviewRequest,
  formFromSearch,
  isoFromLocalInput,
  localInputFromIso,
  parsePreviewSearch,
  previewSearch,
  ruleMomentIso,
  type PreviewForm,
} from "./preview";
import { parseSearch, stringifySearch } from "./search";

// "Price as of": the picker's local time, the UTC moment sent and kept in the address.

const form = (patch: Partial<PreviewForm> = {}): PreviewForm => ({
  service: "volume.size",
  quantity: "80",
  tenant: "",
  fieldValues: {},
  extraRows: [],
  nextRowId: 0,
  ...patch,
});

describe("the moment priced", () => {
  it("is sent as the UTC moment of the local date and time picked", () => {
    const local = "2026-11-25T18:30:15";
    const { request, errors } = buildPreviewRequest(form({ at: local }), []);
    expect(errors.at).toBeUndefined();
    expect(request?.at).toBe(new Date(2026, 10, 25, 18, 30, 15).toISOString());
  });

  it("is left out when empty (now)", () => {
    expect(buildPreviewRequest(form({ at: "" }), []).request).not.toHaveProperty("at");
    expect(buildPreviewRequest(form(), []).request).not.toHaveProperty("at");
  });

  it("refuses what is not a date and time, without a request", () => {
    const { request, errors } = buildPreviewRequest(form({ at: "yesterday" }), []);
    expect(request).toBeNull();
    expect(errors.at).toMatch(/Enter a date and time/);
  });

  it("round-trips through the address as UTC and back to the same local input", () => {
    const typed = form({ at: "2026-03-29T02:45:00" });
    const text = stringifySearch(previewSearch(typed, []));
    const search = parsePreviewSearch(parseSearch(text));
    expect(search.at).toBe(isoFromLocalInput("2026-03-29T02:45:00"));
    const again = formFromSearch(search, []);
    expect(buildPreviewRequest(again, []).request).toEqual(buildPreviewRequest(typed, []).request);
  });

  it("shows a UTC moment in the picker to the second, and nothing for an invalid one", () => {
    const iso = new Date(2026, 0, 2, 3, 4, 5).toISOString();
    expect(localInputFromIso(iso)).toBe("2026-01-02T03:04:05");
    expect(localInputFromIso("nonsense")).toBe("");
  });

  it("reads a rule's date without an offset as UTC", () => {
    expect(ruleMomentIso("2026-11-25T10:00:00.123000")).toBe("2026-11-25T10:00:00.123000Z");
    expect(ruleMomentIso("2026-11-25T10:00:00Z")).toBe("2026-11-25T10:00:00Z");
    expect(Date.parse(ruleMomentIso("2026-11-25T10:00:00.123000"))).toBe(
      Date.UTC(2026, 10, 25, 10, 0, 0, 123),
    );
  });
});
