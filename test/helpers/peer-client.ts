// Run inside a peer's namespace (test/helpers/netns.ts): sends the requests it reads as JSON on
// stdin, one after another, and prints what came back as JSON on stdout.

export interface PeerRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** Open a WebSocket instead, and report whether it opened or how it failed. */
  websocket?: boolean;
}

export interface PeerAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

async function send(request: PeerRequest): Promise<PeerAnswer> {
  if (request.websocket) {
    return await new Promise((resolve) => {
      const ws = new WebSocket(request.url, { headers: request.headers ?? {} } as unknown as string[]);
      ws.onopen = () => {
        ws.close();
        resolve({ status: 101, headers: {}, body: "" });
      };
      ws.onerror = () => resolve({ status: 0, headers: {}, body: "refused" });
    });
  }
  const response = await fetch(request.url, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: (await response.text()).slice(0, 2000),
  };
}

if (import.meta.main) {
  const requests = (await Bun.stdin.json()) as PeerRequest[];
  const answers: PeerAnswer[] = [];
  for (const request of requests) answers.push(await send(request));
  process.stdout.write(JSON.stringify(answers));
}
