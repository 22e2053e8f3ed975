import http from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  url: string;
  body: string;
  status: number;
}

/**
 * A plain forwarding proxy in front of the real CloudKitty that writes down what the client
 * sent, so a test can check the wire: costs as JSON strings, no `recursive` parameter, a PUT's
 * 302 not followed.
 */
export async function startRecordingProxy(target: string) {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      const body = Buffer.concat(chunks);
      // The Host header is kept: CloudKitty's Locations then name the proxy, as behind a real one.
      const forwarded = http.request(
        new URL(incoming.url ?? "/", target),
        { method: incoming.method, headers: incoming.headers },
        (answer) => {
          requests.push({
            method: incoming.method ?? "",
            url: incoming.url ?? "",
            body: body.toString("utf8"),
            status: answer.statusCode ?? 0,
          });
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forwarded.on("error", () => outgoing.destroy());
      forwarded.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
