import { Link } from "@tanstack/react-router";

export interface Crumb {
  label: string;
  /** Absent for the current page. */
  to?: string;
  params?: Record<string, string>;
}

export function Breadcrumbs({ crumbs }: { crumbs: Crumb[] }) {
  return (
    <nav aria-label="Breadcrumb" className="breadcrumbs">
      <ol>
        {crumbs.map((crumb, index) => (
          <li key={`${crumb.label}-${index}`}>
            {crumb.to ? (
              <Link to={crumb.to} params={crumb.params}>
                {crumb.label}
              </Link>
            ) : (
              <span aria-current="page">{crumb.label}</span>
            )}
          </li>
        ))}
      </ol>
    </nav>
  );
}
