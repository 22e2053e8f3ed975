import { QueryClient, QueryObserver } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { refreshAllQueries } from "./refresh";

/** A server that answers 20 ms after each request with the rows it held when the request arrived. */
function slowServer() {
  let rows = ["before the change"];
  let calls = 0;
  return {
    fetchRows: () => {
      calls += 1;
      const answer = [...rows];
      return new Promise<string[]>((resolve) => setTimeout(() => resolve(answer), 20));
    },
    change: () => (rows = ["after the change"]),
    calls: () => calls,
  };
}

function watch(queryClient: QueryClient, key: string, queryFn: () => Promise<string[]>) {
  const observer = new QueryObserver(queryClient, { queryKey: [key], queryFn });
  const unsubscribe = observer.subscribe(() => undefined);
  return { observer, unsubscribe };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 60));

describe("refreshing after a change", () => {
  it("fetches again a first load that was in flight during the change", async () => {
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const server = slowServer();
    // The page's first load is on its way when the change is made.
    const { observer, unsubscribe } = watch(queryClient, "rows", server.fetchRows);
    server.change();
    await refreshAllQueries(queryClient);
    await settle();
    expect(server.calls()).toBe(2);
    expect(observer.getCurrentResult().data).toEqual(["after the change"]);
    unsubscribe();
  });

  it("refetches what is on screen and marks the rest stale", async () => {
    const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const server = slowServer();
    const { observer, unsubscribe } = watch(queryClient, "shown", server.fetchRows);
    await settle();
    queryClient.setQueryData(["not shown"], ["cached"]);
    server.change();
    await refreshAllQueries(queryClient);
    expect(observer.getCurrentResult().data).toEqual(["after the change"]);
    expect(queryClient.getQueryState(["not shown"])?.isInvalidated).toBe(true);
    unsubscribe();
  });
});
