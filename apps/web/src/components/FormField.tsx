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
  error,
  required = false,
  children,
}: {
  label: string;
  hint?: ReactNode;
  error?: string | undefined;
  required?: boolean;
  children: (a11y: FieldA11y) => ReactNode;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint ? hintId : "", error ? errorId : ""].filter(Boolean).join(" ");
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
      {error && (
        <p id={errorId} className="form-error">
          {error}
        </p>
      )}
    </div>
  );
}
