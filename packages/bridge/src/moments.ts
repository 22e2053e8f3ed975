/*
 * Moments as CloudKitty 23+ writes them and Ratecard's rule-set document carries them: UTC without
 * an offset, `2027-01-01T00:00:00`, microseconds when not zero (`.123456`). CloudKitty compares
 * them with its own naive local time, so the bridge sends UTC written without an offset.
 */

const MOMENT = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?$/;

/** Milliseconds since the epoch (microseconds cut), or null for no moment or an unreadable one. */
export function momentMillis(text: string | null | undefined): number | null {
  if (!text) return null;
  const match = MOMENT.exec(text.trim());
  if (!match) return null;
  const [, y, mo, d, h, mi, s, fraction] = match;
  const ms = fraction ? Math.floor(Number(fraction.padEnd(6, "0")) / 1000) : 0;
  const time = Date.UTC(
    Number(y),
    Number(mo) - 1,
    Number(d),
    Number(h ?? 0),
    Number(mi ?? 0),
    Number(s ?? 0),
    ms,
  );
  return Number.isNaN(time) ? null : time;
}

/** A moment as CloudKitty writes it (UTC, no offset; microseconds only when not zero). */
export function formatMoment(time: number): string {
  const date = new Date(time);
  const iso = date.toISOString();
  const ms = date.getUTCMilliseconds();
  return ms === 0 ? iso.slice(0, 19) : `${iso.slice(0, 19)}.${String(ms * 1000).padStart(6, "0")}`;
}
