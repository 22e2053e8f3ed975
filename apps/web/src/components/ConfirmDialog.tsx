import { AlertDialog } from "radix-ui";
import { useRef, type ReactNode, type RefObject } from "react";

interface ConfirmDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => void;
  pending?: boolean;
  /** The confirm button's text while the action runs. */
  pendingLabel?: string;
  /** Disables the confirm button, e.g. while what goes with the delete is still being counted. */
  confirmDisabled?: boolean;
  /** "danger" for what destroys, "primary" for a change that can be undone. */
  tone?: "danger" | "primary";
  cancelLabel?: string;
  /** Where focus goes on close, when not back to what opened the dialog (e.g. the field just saved). */
  finalFocus?: RefObject<HTMLElement | null>;
}

/** A confirmation of a consequential action: focus is trapped inside and returns to the trigger on close. */
export function ConfirmDialog({
  open,
  onOpenChange,
  title,
  children,
  confirmLabel,
  onConfirm,
  pending = false,
  pendingLabel = "Deleting…",
  confirmDisabled = false,
  tone = "danger",
  cancelLabel = "Cancel",
  finalFocus,
}: ConfirmDialogProps) {
  // Radix returns focus to an AlertDialog.Trigger; these dialogs open from a switch, a row action or
  // a form instead, so focus goes back to whatever had it when the dialog opened.
  const returnFocusTo = useRef<Element | null>(null);
  return (
    <AlertDialog.Root open={open} onOpenChange={onOpenChange}>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="dialog-overlay" />
        <AlertDialog.Content
          className="dialog"
          onOpenAutoFocus={() => (returnFocusTo.current = document.activeElement)}
          onCloseAutoFocus={(event) => {
            const target = finalFocus?.current ?? returnFocusTo.current;
            if (target instanceof HTMLElement && target.isConnected) {
              event.preventDefault();
              target.focus();
            }
          }}
        >
          <AlertDialog.Title className="dialog-title">{title}</AlertDialog.Title>
          <AlertDialog.Description asChild>
            <div className="dialog-body">{children}</div>
          </AlertDialog.Description>
          <div className="dialog-actions">
            <AlertDialog.Cancel className="button" disabled={pending}>
              {cancelLabel}
            </AlertDialog.Cancel>
            <button
              type="button"
              className={`button ${tone}`}
              disabled={pending || confirmDisabled}
              onClick={onConfirm}
            >
              {pending ? pendingLabel : confirmLabel}
            </button>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
