import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import proxyaddr from "proxy-addr";

/**
 * What a request says about the client and the URL it used, believing X-Forwarded-* only from the
 * configured trusted proxies (TRUSTED_PROXIES): anyone else could claim any address or scheme.
 */
export interface Forwarded {
  clientAddress: (req: IncomingMessage) => string;
  /** `https://ratecard.example.com`: the origin the client sees, for Location headers and cookies. */
  origin: (req: IncomingMessage) => string;
  isSecure: (req: IncomingMessage) => boolean;
}

function firstValue(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value?.split(",")[0]?.trim() || undefined;
}

export function createForwarded(trustedProxies: string[]): Forwarded {
  const trust = proxyaddr.compile(trustedProxies);
  const fromTrustedProxy = (req: IncomingMessage) =>
    trustedProxies.length > 0 && trust(req.socket.remoteAddress ?? "", 0);
  const isSecure = (req: IncomingMessage) => {
    if (fromTrustedProxy(req)) {
      const proto = firstValue(req.headers["x-forwarded-proto"]);
      if (proto) return proto.toLowerCase() === "https";
    }
    return Boolean((req.socket as TLSSocket).encrypted);
  };
  return {
    // Without trusted proxies the peer is the client: proxy-addr would parse X-Forwarded-For only
    // to discard it.
    clientAddress: (req) =>
      trustedProxies.length > 0 ? proxyaddr(req, trust) : (req.socket.remoteAddress ?? ""),
    isSecure,
    origin(req) {
      const host =
        (fromTrustedProxy(req) && firstValue(req.headers["x-forwarded-host"])) ||
        req.headers.host ||
        "localhost";
      return `${isSecure(req) ? "https" : "http"}://${host}`;
    },
  };
}
