import { QueryClientProvider } from "@tanstack/react-query";
import { RouterProvider } from "@tanstack/react-router";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { retryUnreachableSession } from "./lib/recovery";
import { SessionStore } from "./lib/session-store";
import { createAppRouter } from "./router";
import { SessionProvider } from "./session/SessionProvider";
import { createApiClient, createQueryClient, TRPCProvider } from "./trpc";
import "./styles.css";

const session = new SessionStore();
const queryClient = createQueryClient();
const trpcClient = createApiClient(session);
const router = createAppRouter();
// The console opened while the server was down shows so, and comes in by itself once it is back.
retryUnreachableSession(session);

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <SessionProvider store={session}>
          <RouterProvider router={router} />
        </SessionProvider>
      </TRPCProvider>
    </QueryClientProvider>
  </StrictMode>,
);
