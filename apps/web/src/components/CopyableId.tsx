import { toast } from "sonner";

export function CopyableId({ id, label = "ID" }: { id: string; label?: string }) {
  const copy = () => {
    navigator.clipboard
      .writeText(id)
      .then(() => toast.success(`${label} copied`))
      .catch(() => toast.error("The browser refused to copy; select the text instead."));
  };
  return (
    <span className="copyable">
      <code>{id}</code>
      <button
        type="button"
        className="icon-button"
        onClick={copy}
        aria-label={`Copy ${label} ${id}`}
        title="Copy"
      >
        <svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true">
          <rect
            x="5"
            y="5"
            width="8"
            height="9"
            rx="1.5"
            fill="none"
            stroke="currentColor"
            strokeWidth="1.4"
          />
          <path
            d="M3 11V3.5A1.5 1.5 0 0 1 4.5 2H10"
            fill="none"
            stroke="currentColor"
            strokeWidth="1.4"
          />
        </svg>
      </button>
    </span>
  );
}
