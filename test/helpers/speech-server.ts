import type { Server } from "bun";
import type { TestApp } from "./app.ts";

/** What the stand-in answers: a transcript's text, or a whole response (or either, computed). */
type Reply = string | ((request: Request, call: number) => string | Response | Promise<string | Response>);

/** A real HTTP server in place of an OpenAI-compatible transcription server (the remote engine's). */
export interface SpeechServer {
  readonly port: number;
  /** The base URL as `remote_stt_base_url` takes it: `http://127.0.0.1:<port>/v1`. */
  readonly url: string;
  /** Requests answered so far. */
  readonly calls: number;
  stop(): void;
  [Symbol.dispose](): void;
}

/**
 * Starts a stand-in transcription server on a free port: each request is answered with `reply`
 * (a string becomes `{"text": …}`), whatever its path. `stop()` (or `using`) ends it.
 */
export function fakeSpeechServer(reply: Reply): SpeechServer {
  let calls = 0;
  const server: Server<undefined> = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      calls += 1;
      const answer = typeof reply === "string" ? reply : await reply(request, calls);
      return typeof answer === "string" ? Response.json({ text: answer }) : answer;
    },
  });
  const stop = () => void server.stop(true);
  return {
    port: server.port ?? 0,
    url: `http://127.0.0.1:${server.port}/v1`,
    get calls() {
      return calls;
    },
    stop,
    [Symbol.dispose]: stop,
  };
}

/** Points a test app's remote engine at `server` and makes it the engine (model "whisper-1"). */
export function useSpeechServer(app: Pick<TestApp, "services">, server: { url: string }): void {
  app.services.settings.set("stt_engine", "remote");
  app.services.settings.set("remote_stt_base_url", server.url);
  app.services.settings.set("remote_stt_model", "whisper-1");
}
