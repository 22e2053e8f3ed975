import { Link } from "@tanstack/react-router";

export function NotFoundPage() {
  return (
    <section className="panel empty-state">
      <h1>Page not found</h1>
      <p>This address does not match any page of the console.</p>
      <Link to="/hashmap/services" className="button primary">
        Go to services
      </Link>
    </section>
  );
}
