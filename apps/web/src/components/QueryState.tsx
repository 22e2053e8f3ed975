import type { ErrorComponentProps } from "@tanstack/react-router";
import { Link } from "@tanstack/react-router";
import type { ReactNode } from "react";
import { describeProblem, isNotFound, isTransientProblem } from "../lib/errors";

export function LoadingRows({ label = "Loading…", rows = 4 }: { label?: string; rows?: number }) {
  return (
    <div className="loading" role="status" aria-live="polite">
      <span className="visually-hidden">{label}</span>
      {Array.from({ length: rows }, (_, index) => (
        <div key={index} className="skeleton-row" aria-hidden="true" />
      ))}
    </div>
  );
}

export function ErrorPanel({
  error,
  onRetry,
  title,
}: {
  error: unknown;
  onRetry?: () => void;
  title?: string;
}) {
  const problem = describeProblem(error);
  return (
    <div className="alert error" role="alert">
      <p className="alert-title">
        {title ??
          (problem.code === "NETWORK"
            ? "The server is not answering"
            : problem.code === "FORBIDDEN"
              ? "Not allowed"
              : "Loading failed")}
      </p>
      <p>{problem.message}</p>
      {isTransientProblem(error) && (
        <p className="muted">
          The console tries again by itself and shows the page as soon as the server answers.
        </p>
      )}
      {onRetry && (
        <button type="button" className="button" onClick={onRetry}>
          Retry now
        </button>
      )}
    </div>
  );
}

export interface QueryLike<T> {
  data: T | undefined;
  error: unknown;
  isPending: boolean;
  isError: boolean;
  refetch: () => unknown;
}

/** Loading, failure with retry, or the content; a missing record gets its own message. */
export function QueryState<T>({
  query,
  notFound,
  children,
}: {
  query: QueryLike<T>;
  notFound?: ReactNode;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <LoadingRows />;
  if (query.isError) {
    if (notFound && isNotFound(query.error)) return <>{notFound}</>;
    return <ErrorPanel error={query.error} onRetry={() => void query.refetch()} />;
  }
  return <>{children(query.data as T)}</>;
}

export function MissingRecord({
  what,
  backTo,
  backLabel,
}: {
  what: string;
  backTo: string;
  backLabel: string;
}) {
  return (
    <section className="panel empty-state" role="alert">
      <h1>{what} not found</h1>
      <p>It may have been deleted, or the address is wrong.</p>
      <Link to={backTo} className="button primary">
        {backLabel}
      </Link>
    </section>
  );
}

export function RouteError({ error, reset }: ErrorComponentProps) {
  return <ErrorPanel error={error} onRetry={reset} title="This page failed" />;
}
