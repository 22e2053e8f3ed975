import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from "react";
import { formatRulePanel, type RulePanelTarget } from "../lib/rule-list";
import type { RuleKind } from "../lib/rules";
import { useCan } from "../session/permissions";
import { RulePanelDialog } from "./RulePanel";

type OpenRule = (target: { kind: RuleKind; ruleId: string }) => void;

const InPlaceRuleEditorContext = createContext<OpenRule | null>(null);

/**
 * Opens a rule in the side panel wherever it is named (the warnings panel, the preview), without
 * leaving the page: unlike a rule list's panel, its state is not in the address, so the URL, the
 * scroll position and the page's own state stay as they were. Null outside a page that mounts
 * `InPlaceRuleEditor`, and for a role that may not write rules.
 */
export function useOpenRuleInPlace(): OpenRule | null {
  const open = useContext(InPlaceRuleEditorContext);
  const { writeRules } = useCan();
  return writeRules ? open : null;
}

/** The attribute that names the rule an in-place Edit button opens (focus falls back on it). */
export const EDIT_RULE_ATTRIBUTE = "data-edit-rule";

/**
 * "Edit" next to a rule named outside a list, for those who may change rules on a page that
 * mounts `InPlaceRuleEditor`; nothing otherwise (the rule's own link stays next to it).
 */
export function EditRuleInPlaceButton({
  kind,
  ruleId,
  description,
}: {
  kind: RuleKind;
  ruleId: string;
  /** What the rule is ("the flat mapping for “m1.small” on …"), for the button's name. */
  description: string;
}) {
  const openInPlace = useOpenRuleInPlace();
  if (!openInPlace) return null;
  return (
    <>
      {" "}
      <button
        type="button"
        className="button small"
        {...{ [EDIT_RULE_ATTRIBUTE]: ruleId }}
        aria-label={`Edit ${kind} ${description} here`}
        onClick={() => openInPlace({ kind, ruleId })}
      >
        Edit
      </button>
    </>
  );
}

export function InPlaceRuleEditor({ children }: { children: ReactNode }) {
  const [target, setTarget] = useState<RulePanelTarget | null>(null);
  const open = useCallback<OpenRule>((next) => setTarget(next), []);
  const close = useCallback(() => setTarget(null), []);
  const context = useMemo(() => ({}), []);
  return (
    <InPlaceRuleEditorContext.Provider value={open}>
      {children}
      <RulePanelDialog
        target={target}
        targetKey={target ? formatRulePanel(target) : undefined}
        context={context}
        onClose={close}
        fallbackFocus={(opener) => refocusAfterRefresh(opener)}
      />
    </InPlaceRuleEditorContext.Provider>
  );
}

/**
 * The page refreshes after a save, and the control that opened the panel may have been re-rendered
 * (the same rule's Edit button, now elsewhere) or removed with its warning: then the warnings
 * panel, or the page's heading, takes the focus rather than the document's body.
 */
function refocusAfterRefresh(opener: HTMLElement | null): HTMLElement | null {
  const ruleId = opener?.getAttribute(EDIT_RULE_ATTRIBUTE);
  if (ruleId) {
    const same = document.querySelector<HTMLElement>(
      `[${EDIT_RULE_ATTRIBUTE}="${CSS.escape(ruleId)}"]`,
    );
    if (same) return same;
  }
  const heading = document.querySelector<HTMLElement>(".callout.warning h2, main h1");
  if (heading && !heading.hasAttribute("tabindex")) heading.tabIndex = -1;
  return heading;
}
