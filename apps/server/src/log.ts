import { pino, type Logger } from "pino";

/** How long a log line may wait in the destination's buffer before it is written. */
export const LOG_FLUSH_MS = 10;

/**
 * The server's log: pino's JSON lines on standard output, written in batches by pino's own
 * destination (sonic-boom) rather than one write per line. A busy server answers one request per
 * event-loop turn more often than not, and a write per access line cost more than the rest of a
 * kept answer (docs/performance.md). Lines keep their order and are written once 32 KiB are
 * waiting, or at most LOG_FLUSH_MS after they were logged, synchronously, as pino's default
 * destination writes (an asynchronous one hands every write to a worker thread, and its periodic
 * flush would do so a hundred times a second on an idle server). Lines still held when the process
 * exits are written then; a SIGKILL loses at most the last LOG_FLUSH_MS of lines.
 */
export function createLogger(level: string): Logger {
  const destination = pino.destination({
    dest: 1,
    sync: true,
    minLength: 32 * 1024,
    // sonic-boom writes at most maxWrite bytes at once (16 KiB by default) and wants more than
    // minLength.
    maxWrite: 64 * 1024,
    periodicFlush: LOG_FLUSH_MS,
  });
  process.once("exit", () => {
    try {
      destination.flushSync();
    } catch {
      // Standard output is gone (closed pipe): nothing more can be written anywhere.
    }
  });
  return pino({ level }, destination);
}
