import { openCompressedStream } from "./compressed.ts";
import { frameBytes, type PcmLayout, pcmToMono } from "./pcm.ts";
import { concat, createResampler } from "./resample.ts";

/**
 * What a live stream's bytes hold: raw interleaved PCM in a layout (any rate, sample width and
 * channel count), or Opus in a WebM or Ogg container, cut wherever a browser's MediaRecorder
 * likes (the container says its own rate and channels).
 */
export type StreamFormat = PcmLayout | { container: "webm" | "ogg" };

/** Audio arriving in pieces, turned into 16 kHz mono in the order it came. */
export interface AudioStream {
  /** Reads `bytes` before returning, so the caller may reuse them; the results resolve in order. */
  push(bytes: Uint8Array): Promise<Float32Array>;
  /** What is left at the end (the resampler's last samples, a codec's last frame). */
  end(): Promise<Float32Array>;
  /** Frees the codec of a stream that will not finish. */
  close(): void;
  /** Seconds of audio in `bytes` when the format tells before decoding (PCM); 0 for a codec. */
  secondsIn(bytes: number): number;
}

const isPcmFormat = (format: StreamFormat): format is PcmLayout => !("container" in format);

/** Whether bytes in `b` can go on through a stream opened for `a`. */
export function sameStreamFormat(a: StreamFormat, b: StreamFormat): boolean {
  if (!isPcmFormat(a) || !isPcmFormat(b))
    return !isPcmFormat(a) && !isPcmFormat(b) && a.container === b.container;
  return a.encoding === b.encoding && a.sampleRate === b.sampleRate && a.channels === b.channels;
}

/**
 * Opens the stream for `format`. `maxDurationMs` stops a codec from expanding a small frame into
 * more audio than a dictation may hold (raw PCM is counted by its caller from its byte length).
 */
export function openAudioStream(format: StreamFormat, maxDurationMs: number): AudioStream {
  return isPcmFormat(format) ? createPcmStream(format) : openOpusStream(format.container, maxDurationMs);
}

/**
 * Raw PCM to 16 kHz mono: channels averaged, the rate converted with svc's resampler. A piece
 * need not hold whole frames (1024 bytes of 24-bit audio do not, and a WebSocket frame may be cut
 * anywhere): the bytes of a frame split between pieces wait for the rest; a partial frame left at
 * the end is dropped.
 */
function createPcmStream(layout: PcmLayout): AudioStream {
  const size = frameBytes(layout);
  const bytesPerSecond = size * layout.sampleRate;
  const resampler = createResampler(layout.sampleRate);
  let carry = new Uint8Array(0);
  return {
    push(bytes) {
      const input = carry.length > 0 ? Buffer.concat([carry, bytes]) : bytes;
      const whole = input.length - (input.length % size);
      // A copy: the caller may reuse its bytes (a Buffer's slice would be a view of them).
      carry = new Uint8Array(input.subarray(whole));
      if (whole === 0) return Promise.resolve(new Float32Array(0));
      return Promise.resolve(resampler.push(pcmToMono(input.subarray(0, whole), layout).samples));
    },
    end() {
      carry = new Uint8Array(0);
      return Promise.resolve(resampler.flush());
    },
    close() {},
    secondsIn: (bytes) => bytes / bytesPerSecond,
  };
}

const containers = {
  webm: { decoder: "webm", format: "WebM" },
  ogg: { decoder: "opus", format: "Ogg Opus" },
} as const;

/** Opus in WebM or Ogg, decoded as the chunks come, whole or not. */
function openOpusStream(container: "webm" | "ogg", maxDurationMs: number): AudioStream {
  const opened = openCompressedStream({ ...containers[container], maxDurationMs, whole: false });
  // Each step waits for the one before: the codec takes its bytes strictly in order.
  let order: Promise<unknown> = opened.catch(() => {});
  const next = (step: (stream: Awaited<typeof opened>) => Promise<Float32Array[]>) => {
    const result = order.then(() => opened.then(step)).then(concat);
    order = result.catch(() => {});
    return result;
  };
  return {
    push(bytes) {
      const copy = new Uint8Array(bytes);
      return next((stream) => stream.push(copy));
    },
    end: () => next((stream) => stream.end()),
    close() {
      opened.then((stream) => stream.free()).catch(() => {});
    },
    secondsIn: () => 0,
  };
}
