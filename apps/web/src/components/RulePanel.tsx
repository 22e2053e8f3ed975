import { useQuery, type UseQueryResult } from "@tanstack/react-query";
import { useNavigate, useSearch } from "@tanstack/react-router";
import { Dialog } from "radix-ui";
import { useCallback, useLayoutEffect, useMemo, useRef } from "react";
import { useLookups } from "../hooks";
import { newRuleFormValues, ruleFormValues, type ExistingRule } from "../lib/rule-form";
import {
  browserStorage,
  parseRulePanel,
  rememberedGroup,
  type RulePanelTarget,
} from "../lib/rule-list";
import { useTRPC } from "../trpc";
import { QueryState } from "./QueryState";
import { RuleForm, type SavedRule } from "./RuleForm";
import type { NewRuleContext } from "./RuleTable";
import "./rule-panel.css";

/**
 * Closes the panel: the list's address again, in place of the panel's (no history entry, and no
 * scroll reset or restoration, so the list stays exactly where it was).
 */
export function useCloseRulePanel(): () => void {
  const navigate = useNavigate();
  return useCallback(
    () =>
      void navigate({
        to: ".",
        search: ((previous: Record<string, unknown>) => ({
          ...previous,
          rule: undefined,
        })) as never,
        replace: true,
        resetScroll: false,
      }),
    [navigate],
  );
}

/**
 * The side panel over a list of rules: the rule named by the `rule` query parameter, or a new one
 * attached to what the list shows (`context`). Saving closes it and hands the saved rule to
 * `onSaved`, so the list can bring it into view and focus it.
 */
export function RulePanel({
  context,
  onSaved,
}: {
  context: NewRuleContext;
  onSaved: (saved: SavedRule) => void;
}) {
  const search: { rule?: string } = useSearch({ strict: false });
  const close = useCloseRulePanel();
  return (
    <RulePanelDialog
      target={parseRulePanel(search.rule)}
      targetKey={search.rule}
      context={context}
      onClose={close}
      onSaved={onSaved}
    />
  );
}

/**
 * The side panel itself, opened while `target` is set; `onClose` must clear it. Without `onSaved`
 * (or when it returns false) focus goes back to the control that opened the panel, or to
 * `fallbackFocus()` when a refresh after the save removed that control.
 */
export function RulePanelDialog({
  target,
  targetKey,
  context,
  onClose,
  onSaved,
  fallbackFocus,
}: {
  target: RulePanelTarget | null;
  /** Changes when another rule opens, so that the form starts afresh. */
  targetKey: string | undefined;
  context: NewRuleContext;
  onClose: () => void;
  onSaved?: (saved: SavedRule) => void;
  fallbackFocus?: (opener: HTMLElement | null) => HTMLElement | null | undefined;
}) {
  // Handed to the list once the panel has closed: a modal panel keeps focus inside it until then.
  const savedRef = useRef<SavedRule | null>(null);
  // Links open the panel by navigating, not through a Dialog.Trigger that Radix would refocus.
  const openerRef = useRef<HTMLElement | null>(null);
  const isOpen = target !== null;
  useLayoutEffect(() => {
    if (isOpen && document.activeElement instanceof HTMLElement)
      openerRef.current = document.activeElement;
  }, [isOpen]);

  return (
    <Dialog.Root
      open={isOpen}
      onOpenChange={(open) => {
        if (!open) onClose();
      }}
    >
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content
          className="side-panel"
          aria-describedby={undefined}
          // The form focuses its own first field.
          onOpenAutoFocus={(event) => event.preventDefault()}
          onCloseAutoFocus={(event) => {
            // After a save the list focuses the saved row instead of the button that opened the panel.
            event.preventDefault();
            const saved = savedRef.current;
            savedRef.current = null;
            if (saved && onSaved) {
              onSaved(saved);
              return;
            }
            const opener = openerRef.current;
            const focusTarget = opener?.isConnected ? opener : fallbackFocus?.(opener);
            focusTarget?.focus({ preventScroll: true });
          }}
          onEscapeKeyDown={(event) => {
            // Escape in the inline "new group" input closes that input only.
            if ((event.target as HTMLElement | null)?.closest(".inline-create"))
              event.preventDefault();
          }}
        >
          {target && (
            <RulePanelContent
              key={targetKey}
              target={target}
              context={context}
              onCancel={onClose}
              onSaved={(saved) => {
                savedRef.current = saved;
                onClose();
              }}
            />
          )}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

function RulePanelContent({
  target,
  context,
  onSaved,
  onCancel,
}: {
  target: RulePanelTarget;
  context: NewRuleContext;
  onSaved: (saved: SavedRule) => void;
  onCancel: () => void;
}) {
  const trpc = useTRPC();
  const { kind, ruleId } = target;
  const mapping = useQuery({
    ...trpc.hashmap.mappings.get.queryOptions({ mapping_id: ruleId ?? "" }),
    enabled: kind === "mapping" && Boolean(ruleId),
  });
  const threshold = useQuery({
    ...trpc.hashmap.thresholds.get.queryOptions({ threshold_id: ruleId ?? "" }),
    enabled: kind === "threshold" && Boolean(ruleId),
  });
  const rule: UseQueryResult<ExistingRule, unknown> = kind === "mapping" ? mapping : threshold;
  const { lookups, isPending, error, refetch } = useLookups();
  const lookupsQuery = { data: lookups, error, isPending, isError: Boolean(error), refetch };
  const noun = kind === "mapping" ? "Mapping" : "Threshold";

  // Chosen once when the panel opens; the remembered group only for new rules without one.
  const newDefaults = useMemo(
    () =>
      newRuleFormValues({
        parent: context.parent ?? null,
        groupId: context.groupId ?? rememberedGroup(browserStorage(), lookups.groups),
      }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [isPending],
  );

  const form = (
    defaults: ReturnType<typeof newRuleFormValues>,
    parentFixed: boolean,
    revision?: number,
  ) => (
    <RuleForm
      kind={kind}
      lookups={lookups}
      defaults={defaults}
      parentFixed={parentFixed}
      ruleId={ruleId}
      revision={revision}
      heading={(title) => <Dialog.Title className="dialog-title">{title}</Dialog.Title>}
      lead={(attachedTo) => <p className="lead">Attached to {attachedTo}</p>}
      onSaved={onSaved}
      onCancel={onCancel}
    />
  );

  const loading = (
    <>
      <Dialog.Title className="dialog-title">{ruleId ? `${noun}` : `New ${kind}`}</Dialog.Title>
    </>
  );

  if (!ruleId) {
    return (
      <QueryState query={lookupsQuery}>
        {() => form(newDefaults, context.parent !== undefined)}
      </QueryState>
    );
  }
  return (
    <>
      {(rule.isPending || rule.isError || isPending) && loading}
      <QueryState
        query={rule}
        notFound={
          <div role="alert">
            <p>This {kind} no longer exists: it may have been deleted.</p>
            <button type="button" className="button primary" onClick={onCancel}>
              Close
            </button>
          </div>
        }
      >
        {(ruleData) => (
          <QueryState query={lookupsQuery}>
            {() => form(ruleFormValues(ruleData), true, ruleData.revision)}
          </QueryState>
        )}
      </QueryState>
    </>
  );
}
