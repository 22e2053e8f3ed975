import { LosslessNumber, parse } from "lossless-json";

/**
 * JSON.parse keeps every number as a LosslessNumber holding its source text: a cost or level that
 * CloudKitty (or a proxy, or a later release) sends as a JSON number must not pass through a
 * double on its way in. The schemas in schemas.ts turn those into decimal text or integers.
 */
export function parseJsonExactly(text: string): unknown {
  return parse(text, null, (digits: string) => new LosslessNumber(digits));
}
