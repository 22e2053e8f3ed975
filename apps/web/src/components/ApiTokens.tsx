import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { toast } from "sonner";
import { useRefreshAll } from "../hooks";
import { formatDateTime, tokenStatus } from "../lib/accounts";
import { describeProblem } from "../lib/errors";
import { useTRPC, type RouterOutputs } from "../trpc";
import { ConfirmDialog } from "./ConfirmDialog";
import { EmptyState } from "./EmptyState";

export type ApiToken = RouterOutputs["accounts"]["tokens"]["list"]["tokens"][number];

const STATUS_TEXT = { active: "Active", expired: "Expired", revoked: "Revoked" } as const;

function tokenLabel(token: ApiToken): string {
  return token.name ? `${token.name} (${token.prefix}…)` : `${token.prefix}…`;
}

/** API tokens with their state and a Revoke button (after a confirmation naming the token). */
export function ApiTokenTable({
  tokens,
  showOwner,
  label,
  emptyText,
}: {
  tokens: ApiToken[];
  showOwner: boolean;
  label: string;
  emptyText: string;
}) {
  const trpc = useTRPC();
  const refreshAll = useRefreshAll();
  const revoke = useMutation(trpc.accounts.tokens.revoke.mutationOptions());
  const [revoking, setRevoking] = useState<ApiToken | null>(null);

  if (tokens.length === 0) return <EmptyState title="No API tokens">{emptyText}</EmptyState>;
  return (
    <>
      <table className="data-table" aria-label={label}>
        <thead>
          <tr>
            <th scope="col">Name</th>
            {showOwner && <th scope="col">User</th>}
            <th scope="col">Starts with</th>
            <th scope="col">Created</th>
            <th scope="col">Expires</th>
            <th scope="col">Last used</th>
            <th scope="col">State</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {tokens.map((token) => {
            const status = tokenStatus(token);
            return (
              <tr key={token.id}>
                <th scope="row">{token.name ?? <span className="muted">unnamed</span>}</th>
                {showOwner && <td>{token.userName}</td>}
                <td className="mono">{token.prefix}…</td>
                <td>{formatDateTime(token.createdAt)}</td>
                <td>{formatDateTime(token.expiresAt)}</td>
                <td>{token.lastUsedAt ? formatDateTime(token.lastUsedAt) : "Never"}</td>
                <td>
                  <span className={`tag ${status}`}>{STATUS_TEXT[status]}</span>
                </td>
                <td>
                  {status === "active" && (
                    <button
                      type="button"
                      className="button small danger-outline"
                      onClick={() => setRevoking(token)}
                      aria-label={`Revoke token ${tokenLabel(token)}`}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {revoking && (
        <ConfirmDialog
          open
          onOpenChange={(open) => !open && setRevoking(null)}
          title={`Revoke token ${tokenLabel(revoking)}?`}
          confirmLabel="Revoke token"
          pending={revoke.isPending}
          pendingLabel="Revoking…"
          onConfirm={() =>
            void revoke.mutateAsync({ id: revoking.id }).then(
              async () => {
                toast.success(`Token ${tokenLabel(revoking)} revoked`);
                setRevoking(null);
                await refreshAll();
              },
              (error: unknown) => toast.error(describeProblem(error).message),
            )
          }
        >
          <p>
            Scripts and CLI sessions using it are refused from now on
            {showOwner ? ` (it belongs to ${revoking.userName})` : ""}. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
