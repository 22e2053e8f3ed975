export const HASHMAP = "/v1/rating/module_config/hashmap";
export const PYSCRIPTS = "/v1/rating/module_config/pyscripts";

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body, or undefined when the body is empty. */
  body: T;
}

export interface RequestOptions {
  query?: Record<string, string>;
  /** A value to send as JSON, or a raw string sent as is. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** A small REST client for tests: real HTTP to the test server, every answer kept whole. */
export function createClient(baseUrl: string) {
  async function request<T = any>(
    method: string,
    path: string,
    options: RequestOptions = {},
  ): Promise<ApiResponse<T>> {
    const url = new URL(path, baseUrl);
    for (const [key, value] of Object.entries(options.query ?? {}))
      url.searchParams.set(key, value);
    const body =
      options.body === undefined
        ? undefined
        : typeof options.body === "string"
          ? options.body
          : JSON.stringify(options.body);
    const response = await fetch(url, {
      method,
      headers: { "Content-Type": "application/json", ...options.headers },
      body,
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      text,
      body: text ? JSON.parse(text) : undefined,
    };
  }
  return {
    request,
    get: <T = any>(path: string, options?: RequestOptions) => request<T>("GET", path, options),
    post: <T = any>(path: string, body: unknown, options?: RequestOptions) =>
      request<T>("POST", path, { ...options, body }),
    put: <T = any>(path: string, body: unknown, options?: RequestOptions) =>
      request<T>("PUT", path, { ...options, body }),
    delete: <T = any>(path: string, options?: RequestOptions) =>
      request<T>("DELETE", path, options),
  };
}

export type Client = ReturnType<typeof createClient>;
