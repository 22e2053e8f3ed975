import { useEffect, useRef, useState, type InputHTMLAttributes } from "react";

/** A text input that reports its value once typing pauses, so each keystroke does not refetch or rewrite the URL. */
export function DebouncedInput({
  value,
  onCommit,
  delayMs = 250,
  ...inputProps
}: { value: string; onCommit: (value: string) => void; delayMs?: number } & Omit<
  InputHTMLAttributes<HTMLInputElement>,
  "value" | "onChange"
>) {
  const [text, setText] = useState(value);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  return (
    <input
      {...inputProps}
      value={text}
      onChange={(event) => {
        const next = event.target.value;
        setText(next);
        clearTimeout(timer.current);
        timer.current = setTimeout(() => onCommit(next), delayMs);
      }}
    />
  );
}
