import { useQueryClient } from "@tanstack/react-query";
import { AlertDialog } from "radix-ui";
import { useRef } from "react";
import {
  describeChange,
  withAuditEvent,
  type ConflictInfo,
  type FieldDifference,
} from "../lib/conflict";
import { useCan } from "../session/permissions";
import { useTRPC } from "../trpc";
import "./conflict-dialog.css";

/**
 * Asks who changed the resource last from the audit trail; a role that may not read the trail
 * (or a failure) keeps what the server's message said.
 */
export function useConflictAuthor(): (
  resourceId: string,
  conflict: ConflictInfo,
) => Promise<ConflictInfo> {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { readAudit } = useCan();
  return async (resourceId, conflict) => {
    if (!readAudit) return conflict;
    try {
      const page = await queryClient.fetchQuery({
        ...trpc.audit.list.queryOptions({ resource_id: resourceId, limit: 1 }),
        staleTime: 0,
        retry: false,
      });
      return withAuditEvent(conflict, page.events[0]);
    } catch {
      return conflict;
    }
  };
}

/**
 * A save or delete refused because someone changed the resource since it was read: says who and
 * when, what differs, and lets the operator take the current version (`onReload`) or send theirs
 * again over it (`onReapply`). Closing it otherwise keeps what the operator typed.
 */
export function ConflictDialog({
  open,
  title,
  conflict,
  differences,
  pending = false,
  note = "Nothing of yours was saved yet.",
  reloadLabel = "Reload",
  reapplyLabel = "Reapply my change",
  onReload,
  onReapply,
  onClose,
}: {
  open: boolean;
  title: string;
  conflict: ConflictInfo | null;
  /** The current server values against the operator's; null when not compared. */
  differences: FieldDifference[] | null;
  pending?: boolean;
  /** What the refusal left as it was. */
  note?: string;
  reloadLabel?: string;
  reapplyLabel?: string;
  onReload: () => void;
  onReapply: () => void;
  onClose: () => void;
}) {
  const returnFocusTo = useRef<Element | null>(null);
  // The safe choice has focus first: Reload loses nothing on the server.
  const reloadButton = useRef<HTMLButtonElement>(null);
  return (
    <AlertDialog.Root open={open} onOpenChange={(next) => !next && onClose()}>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="dialog-overlay" />
        <AlertDialog.Content
          className="dialog conflict-dialog"
          onOpenAutoFocus={(event) => {
            returnFocusTo.current = document.activeElement;
            event.preventDefault();
            reloadButton.current?.focus();
          }}
          onCloseAutoFocus={(event) => {
            const target = returnFocusTo.current;
            if (target instanceof HTMLElement && target.isConnected) {
              event.preventDefault();
              target.focus();
            }
          }}
        >
          <AlertDialog.Title className="dialog-title">{title}</AlertDialog.Title>
          <AlertDialog.Description asChild>
            <div className="dialog-body">
              <p>
                <strong>{conflict ? describeChange(conflict) : ""}</strong> {note}
              </p>
              {differences && differences.length > 0 && (
                <table className="conflict-diff">
                  <caption>What differs</caption>
                  <thead>
                    <tr>
                      <th scope="col">Field</th>
                      <th scope="col">Now on the server</th>
                      <th scope="col">Yours</th>
                    </tr>
                  </thead>
                  <tbody>
                    {differences.map((difference) => (
                      <tr key={difference.label}>
                        <th scope="row">{difference.label}</th>
                        <td>{difference.server}</td>
                        <td>{difference.mine}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
              {differences && differences.length === 0 && (
                <p>The server already holds the same values as yours.</p>
              )}
              <p className="muted">
                “{reloadLabel}” discards yours and shows the current version; “{reapplyLabel}”
                applies yours to it.
              </p>
            </div>
          </AlertDialog.Description>
          <div className="dialog-actions">
            <button
              ref={reloadButton}
              type="button"
              className="button"
              disabled={pending}
              onClick={onReload}
            >
              {reloadLabel}
            </button>
            <button type="button" className="button primary" disabled={pending} onClick={onReapply}>
              {pending ? "Saving…" : reapplyLabel}
            </button>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
