import { decodeAudio, SAMPLE_RATE } from "../dictation/audio/index.ts";
import { createLiveSession, type LiveTranscriber } from "../dictation/live/session.ts";
import type { DictationRequest } from "../dictation/request.ts";
import type { Vad } from "../dictation/vad/vad.ts";
import { usageOf } from "./responses.ts";

// `stream=true`: the recording goes through a live session, as a dictation spoken into the
// console would, so each piece closed at a pause is sent as a `transcript.text.delta` the moment
// the engine has it; `transcript.text.done` follows with the finished text (cleanup, formats, the
// dictionary and plugins need all of it, so it may differ from the deltas put together).

export type TranscriptEvent =
  | { type: "transcript.text.delta"; delta: string }
  | { type: "transcript.text.done"; text: string; usage: { type: "duration"; seconds: number } };

export interface TranscriptStreamDeps {
  transcriber: LiveTranscriber;
  vad: Pick<Vad, "stream">;
  /** The longest recording taken (max_audio_seconds), in ms. */
  maxAudioMs(): number;
}

export interface TranscriptStreamInput {
  audio: Uint8Array;
  contentType: string | undefined;
  request: DictationRequest;
  signal: AbortSignal;
}

/** How much audio goes into the session at a time: its detector closes pieces as it goes. */
const feedSamples = SAMPLE_RATE;

/**
 * Decodes the recording and waits for its first event: a failure before any text (audio svc
 * cannot read, an engine that cannot load, a language it cannot speak) is thrown here, before the
 * status is sent, so it is answered with its own status as it would be without `stream`. Then
 * answers the rest as the session produces them. Ending the iteration early (the client went
 * away) cancels the session: its queued pieces leave the scheduler.
 */
export async function openTranscriptStream(
  deps: TranscriptStreamDeps,
  input: TranscriptStreamInput,
): Promise<AsyncIterator<TranscriptEvent>> {
  const { pcm } = await decodeAudio(input.audio, input.contentType, { maxDurationMs: deps.maxAudioMs() });
  const rest = events(deps, input, pcm);
  const first = await rest.next();
  let pending: IteratorResult<TranscriptEvent> | null = first;
  return {
    next: async () => {
      if (!pending) return rest.next();
      const event = pending;
      pending = null;
      return event;
    },
    return: () => rest.return(undefined),
  };
}

async function* events(
  deps: TranscriptStreamDeps,
  input: TranscriptStreamInput,
  pcm: Float32Array,
): AsyncGenerator<TranscriptEvent> {
  const ready: TranscriptEvent[] = [];
  let wake: (() => void) | null = null;
  const notify = () => {
    wake?.();
    wake = null;
  };
  let pieces = 0;
  let failure = null as { error: unknown } | null;
  const session = createLiveSession({
    transcriber: deps.transcriber,
    vad: deps.vad.stream(),
    request: input.request,
    onSegment: (segment) => {
      // Deltas are appended as they come: each after the first carries its space.
      ready.push({
        type: "transcript.text.delta",
        delta: pieces++ === 0 ? segment.text : ` ${segment.text}`,
      });
      notify();
    },
    onError: (error) => {
      failure ??= { error };
      notify();
    },
  });
  const cancel = () => session.cancel(input.signal.reason);
  input.signal.addEventListener("abort", cancel, { once: true });
  let finished = false as boolean;
  try {
    for (let at = 0; at < pcm.length; at += feedSamples) session.push(pcm.subarray(at, at + feedSamples));
    const stopped = session.stop().then(
      (result) => {
        finished = true;
        notify();
        return result;
      },
      (error: unknown) => {
        failure ??= { error };
        notify();
        return null;
      },
    );
    for (;;) {
      while (ready.length > 0) {
        const event = ready.shift();
        if (event) yield event;
      }
      if (failure) throw failure.error;
      if (finished) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
    const result = await stopped;
    if (!result) throw new Error("the dictation ended without a result");
    yield { type: "transcript.text.done", text: result.text, usage: usageOf(result) };
  } finally {
    input.signal.removeEventListener("abort", cancel);
    // Left before the end (the client went away, or a failure): nothing more is recognised.
    if (!finished) session.cancel(input.signal.reason);
  }
}
