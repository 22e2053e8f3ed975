import { describe, expect, it } from "vitest";
import { TargetSecretBox } from "../src/domain/targets.js";

// The AES-256-GCM box that keeps CloudKitty targets' secrets at rest.

const A = "11111111-1111-4111-8111-111111111111";
const B = "22222222-2222-4222-8222-222222222222";

describe("TargetSecretBox", () => {
  const box = new TargetSecretBox(Buffer.alloc(32, 7));

  it("seals to ciphertext that opens only for its own target, and never the same twice", () => {
    const sealed = box.seal(A, "application credential secret");
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain("secret");
    expect(box.seal(A, "application credential secret")).not.toBe(sealed);
    expect(box.open(A, sealed)).toBe("application credential secret");
    // The target's id is the associated data: a secret copied onto another row does not open.
    expect(() => box.open(B, sealed)).toThrow(/cannot be decrypted/);
  });

  it("refuses a tampered ciphertext and another key", () => {
    const sealed = box.seal(A, "pa55word");
    const parts = sealed.split(".");
    const flipped = Buffer.from(parts[3]!, "base64url");
    flipped[0] = flipped[0]! ^ 1;
    parts[3] = flipped.toString("base64url");
    expect(() => box.open(A, parts.join("."))).toThrow(/cannot be decrypted/);
    expect(() => new TargetSecretBox(Buffer.alloc(32, 8)).open(A, sealed)).toThrow(
      /cannot be decrypted/,
    );
    expect(() => box.open(A, "garbage")).toThrow(/unreadable/);
  });
});
