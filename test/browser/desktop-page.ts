// A page that dictates to svc as the Freestyle desktop app's renderer does (written for svc's
// tests, not taken from the app), bundled for Chromium by freestyle-desktop.test.ts: its calls
// are cross-origin (the page is served from another origin, as app://renderer is), the
// microphone goes through an AudioWorklet into 80 ms frames of 16 kHz PCM16, the socket to
// /stream is open before the hotkey, and the final text is "pasted" into #pasted.

declare global {
  interface Window {
    desktop: {
      connect(base: string): Promise<{ healthy: boolean; hook: unknown; config: unknown }>;
      press(context: string): Promise<void>;
      release(): Promise<{ pasted: string; releaseToFinalMs: number; messages: string[] }>;
      upload(): Promise<{ status: number; body: unknown }>;
    };
  }
}

// Averages each run of input samples into one 16 kHz sample and posts 1280 of them (80 ms) at a time.
const worklet = `
class Frames extends AudioWorkletProcessor {
  constructor() { super(); this.step = sampleRate / 16000; this.at = 0; this.sum = 0; this.count = 0; this.frame = new Int16Array(1280); this.filled = 0; }
  process(inputs) {
    const channel = inputs[0] && inputs[0][0];
    if (!channel) return true;
    for (let i = 0; i < channel.length; i++) {
      this.sum += channel[i]; this.count += 1; this.at += 1;
      if (this.at < this.step) continue;
      this.at -= this.step;
      const sample = Math.max(-1, Math.min(1, this.sum / this.count));
      this.sum = 0; this.count = 0;
      this.frame[this.filled++] = sample < 0 ? sample * 0x8000 : sample * 0x7fff;
      if (this.filled === this.frame.length) {
        this.port.postMessage(this.frame.buffer, [this.frame.buffer]);
        this.frame = new Int16Array(1280); this.filled = 0;
      }
    }
    return true;
  }
}
registerProcessor("frames", Frames);
`;

let base = "";
let socket: WebSocket | null = null;
const messages: { type: string; text?: string; message?: string }[] = [];
let waiting: (() => void)[] = [];
let context: string | null = null;
let capture: { audio: AudioContext; stream: MediaStream } | null = null;
const captured: Int16Array[] = [];

function next(type: string): Promise<{ type: string; text?: string }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${type}: ${JSON.stringify(messages)}`)), 15_000);
    const look = () => {
      const at = messages.findIndex((message) => message.type === type);
      if (at < 0) {
        waiting.push(look);
        return;
      }
      clearTimeout(timer);
      resolve(messages.splice(at, 1)[0] as { type: string; text?: string });
    };
    look();
  });
}

async function connect(url: string) {
  base = url;
  const health = await fetch(`${base}/api/health`);
  const body = (await health.json()) as { status?: string; name?: string };
  const hook = await (await fetch(`${base}/api/output/hook`)).json();
  socket = new WebSocket(`${base.replace(/^http/, "ws")}/stream`);
  socket.binaryType = "arraybuffer";
  socket.onmessage = (event) => {
    messages.push(JSON.parse(String(event.data)));
    const woken = waiting;
    waiting = [];
    for (const wake of woken) wake();
  };
  const config = await next("config");
  return { healthy: body.status === "ok" && body.name === "freestyle", hook, config };
}

async function press(appContext: string) {
  context = appContext;
  captured.length = 0;
  socket?.send(JSON.stringify({ type: "context", context }));
  const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  const audio = new AudioContext();
  await audio.audioWorklet.addModule(URL.createObjectURL(new Blob([worklet], { type: "text/javascript" })));
  const node = new AudioWorkletNode(audio, "frames");
  socket?.send(JSON.stringify({ type: "start", context }));
  node.port.onmessage = (event: MessageEvent<ArrayBuffer>) => {
    if (!capture) return;
    captured.push(new Int16Array(event.data.slice(0)));
    socket?.send(event.data);
  };
  audio.createMediaStreamSource(stream).connect(node);
  capture = { audio, stream };
}

async function release() {
  const held = capture;
  capture = null;
  for (const track of held?.stream.getTracks() ?? []) track.stop();
  await held?.audio.close();
  const samples = captured.reduce((sum, chunk) => sum + chunk.length, 0);
  const released = performance.now();
  socket?.send(JSON.stringify({ type: "commit", audioDurationMs: Math.round(samples / 16), context }));
  const final = await next("final");
  const releaseToFinalMs = performance.now() - released;
  const answer = await fetch(`${base}/api/output/deliver`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ text: final.text, mode: "paste", appContext: context }),
  });
  const { output } = (await answer.json()) as { output: { text: string } };
  const pasted = document.querySelector<HTMLTextAreaElement>("#pasted");
  if (pasted) pasted.value += output.text;
  return { pasted: output.text, releaseToFinalMs, messages: messages.map((message) => message.type) };
}

/** The upload fallback: the captured audio as a 16 kHz WAV, the context percent-encoded. */
async function upload() {
  const samples = captured.reduce((sum, chunk) => sum + chunk.length, 0);
  const wav = new DataView(new ArrayBuffer(44 + samples * 2));
  const text = (at: number, value: string) => {
    for (let i = 0; i < value.length; i++) wav.setUint8(at + i, value.charCodeAt(i));
  };
  text(0, "RIFF");
  wav.setUint32(4, 36 + samples * 2, true);
  text(8, "WAVEfmt ");
  wav.setUint32(16, 16, true);
  wav.setUint16(20, 1, true);
  wav.setUint16(22, 1, true);
  wav.setUint32(24, 16_000, true);
  wav.setUint32(28, 32_000, true);
  wav.setUint16(32, 2, true);
  wav.setUint16(34, 16, true);
  text(36, "data");
  wav.setUint32(40, samples * 2, true);
  let at = 44;
  for (const chunk of captured) {
    for (const sample of chunk) {
      wav.setInt16(at, sample, true);
      at += 2;
    }
  }
  const response = await fetch(`${base}/api/transcribe`, {
    method: "POST",
    headers: { "content-type": "audio/wav", "x-app-context": encodeURIComponent(context ?? "") },
    body: wav.buffer,
  });
  return { status: response.status, body: await response.json() };
}

window.desktop = { connect, press, release, upload };

export {};
