/**
 * The messages a plugin page (frame.ts) and the console (host.ts) exchange over `postMessage`.
 * Every message carries `svcBridge: 1` and the request's `id`; bodies travel as transferred
 * ArrayBuffers. The console trusts none of it: host.ts checks each field.
 */

export type HeaderList = [name: string, value: string][];

/** Page → console: `window.svc.api(path, init)`. */
export interface ApiRequestMessage {
  svcBridge: 1;
  id: number;
  kind: "api";
  path: string;
  method: string;
  headers: HeaderList;
  body: ArrayBuffer | null;
}

/** Page → console: `window.svc.invoke(channel, payload)`. */
export interface InvokeMessage {
  svcBridge: 1;
  id: number;
  kind: "invoke";
  channel: string;
  payload: unknown;
}

/** Console → page: the answer to an `api` request, rebuilt as a native Response in the page. */
export interface ResponseReply {
  svcBridge: 1;
  id: number;
  kind: "response";
  status: number;
  statusText: string;
  headers: HeaderList;
  body: ArrayBuffer | null;
}

/** Console → page: what an `invoke` resolved to. */
export interface ResultReply {
  svcBridge: 1;
  id: number;
  kind: "result";
  value: unknown;
}

/** Console → page: the request could not be made or the action failed; the promise rejects. */
export interface ErrorReply {
  svcBridge: 1;
  id: number;
  kind: "error";
  message: string;
}

export type BridgeReply = ResponseReply | ResultReply | ErrorReply;

/** Statuses whose Response may not have a body: the constructor refuses one, even an empty one. */
export const nullBodyStatuses: ReadonlySet<number> = new Set([204, 205, 304]);
