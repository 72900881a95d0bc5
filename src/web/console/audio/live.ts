// Live dictation from the console: the recorder's 16 kHz chunks go to GET /api/dictate as they
// are captured, pieces come back while the person speaks, and at stop only the tail is left. The
// messages are the server's own declarations, published in the OpenAPI document and generated into
// api-paths.d.ts (`bun run docs`).

import { ApiError, socketUrl } from "../api.ts";
import type { components } from "../api-paths";

type ClientMessage = components["schemas"]["DictateClientMessage"];
type ServerMessage = components["schemas"]["DictateServerMessage"];
type FinalMessage = Extract<ServerMessage, { type: "final" }>;

export interface LiveText {
  /** Committed pieces so far, in order. */
  committed: string[];
  /** The guess at the piece being spoken, if any. */
  partial: string;
}

export interface LiveConnection {
  send(samples: Float32Array<ArrayBuffer>): void;
  /** Sends stop; resolves with the final body (POST /api/transcribe's shape), rejects on an error. */
  finish(): Promise<FinalMessage>;
  /** Drops the dictation. */
  cancel(): void;
}

/**
 * Opens a live dictation and resolves once svc is ready for audio, or with null when it cannot be
 * had (an older svc, a proxy without WebSockets): the caller then uploads the recording instead.
 */
export function openLive(
  start: { language?: string; appContext?: string },
  onText: (text: LiveText) => void,
  timeoutMs = 3000,
): Promise<LiveConnection | null> {
  const ws = new WebSocket(socketUrl("/api/dictate"));
  ws.binaryType = "arraybuffer";
  const text: LiveText = { committed: [], partial: "" };
  const send = (message: ClientMessage) => ws.send(JSON.stringify(message));
  let settle: ((value: FinalMessage) => void) | undefined;
  let fail: ((error: Error) => void) | undefined;
  let failure: Error | undefined;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      ws.close();
      resolve(null);
    }, timeoutMs);
    const connection: LiveConnection = {
      send(samples) {
        if (ws.readyState === WebSocket.OPEN) ws.send(samples);
      },
      finish() {
        if (failure) return Promise.reject(failure);
        return new Promise<FinalMessage>((done, reject) => {
          settle = done;
          fail = reject;
          send({ type: "stop" });
        });
      },
      cancel() {
        if (ws.readyState === WebSocket.OPEN) send({ type: "cancel" });
        ws.close();
      },
    };
    ws.onopen = () => {
      const message: ClientMessage = { type: "start", format: "f32", sampleRate: 16_000 };
      if (start.language) message.language = start.language;
      if (start.appContext) message.appContext = start.appContext;
      send(message);
    };
    ws.onmessage = (event) => {
      let message: ServerMessage;
      try {
        message = JSON.parse(String(event.data)) as ServerMessage;
      } catch {
        return;
      }
      if (message.type === "ready") {
        clearTimeout(timer);
        resolve(connection);
      } else if (message.type === "partial") {
        text.partial = message.text;
        onText({ ...text, committed: [...text.committed] });
      } else if (message.type === "segment") {
        text.committed.push(message.text);
        text.partial = "";
        onText({ ...text, committed: [...text.committed] });
      } else if (message.type === "final") {
        settle?.(message);
      } else if (message.type === "error") {
        failure = new ApiError(0, message.code, message.message);
        fail?.(failure);
      }
    };
    ws.onclose = () => {
      clearTimeout(timer);
      resolve(null);
      failure ??= new ApiError(0, "upgrade_failed", "The live dictation connection closed.");
      fail?.(failure);
    };
  });
}
