import { useId, type ReactNode } from "react";

export interface FieldA11y {
  id: string;
  "aria-invalid": boolean;
  "aria-describedby"?: string;
  "aria-required"?: boolean;
}

/** A labelled control with its hint and error text wired up for screen readers. */
export function FormField({
  label,
  hint,
  advice,
  error,
  required = false,
  children,
}: {
  label: string;
  hint?: ReactNode;
  /**
   * A remark on what was typed that does not stop the form (a name CloudKitty will never rate);
   * null while there is none, undefined for a field that never advises.
   */
  advice?: string | null | undefined;
  error?: string | undefined;
  required?: boolean;
  children: (a11y: FieldA11y) => ReactNode;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const adviceId = `${id}-advice`;
  const errorId = `${id}-error`;
  const describedBy = [hint ? hintId : "", advice ? adviceId : "", error ? errorId : ""]
    .filter(Boolean)
    .join(" ");
  return (
    <div className={`form-field${error ? " has-error" : ""}`}>
      <label htmlFor={id} className="form-label">
        {label}
        {required && (
          <span className="required" aria-hidden="true">
            {" "}
            *
          </span>
        )}
      </label>
      {children({
        id,
        "aria-invalid": Boolean(error),
        ...(describedBy && { "aria-describedby": describedBy }),
        ...(required && { "aria-required": true }),
      })}
      {hint && (
        <div id={hintId} className="form-hint">
          {hint}
        </div>
      )}
      {/* Present while the form may advise, so screen readers announce advice that typing brings. */}
      {advice !== undefined && (
        <p id={adviceId} className="form-advice" aria-live="polite">
          {advice}
        </p>
      )}
      {error && (
        <p id={errorId} className="form-error">
          {error}
        </p>
      )}
    </div>
  );
}
