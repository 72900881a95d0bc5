// svc-sdk runtime. svc provides this module to plugins at run time (plugins never ship their
// own copy), so it stays small, dependency-free and backwards compatible. Types: index.d.ts.

export const sdkVersion = "0.1.0";

const isThenable = (value) =>
  value !== null &&
  (typeof value === "object" || typeof value === "function") &&
  typeof value.then === "function";

function assign(output, text) {
  if (typeof text !== "string") {
    throw new TypeError(
      `transform(fn): fn must return a string, got ${text === null ? "null" : typeof text}`,
    );
  }
  output.text = text;
}

export function transform(fn) {
  if (typeof fn !== "function") throw new TypeError("transform(fn): fn must be a function");
  return (input, output) => {
    const result = fn(output.text, input);
    // Stay synchronous for synchronous functions: no promise, no extra tick per dictation.
    if (isThenable(result)) return Promise.resolve(result).then((text) => assign(output, text));
    assign(output, result);
    return undefined;
  };
}

export function definePlugin(factory) {
  if (typeof factory !== "function") throw new TypeError("definePlugin(factory): factory must be a function");
  return factory;
}

export function getBridge() {
  const bridge = typeof globalThis === "object" ? (globalThis.svc ?? globalThis.freestyle) : undefined;
  return bridge && typeof bridge.api === "function" ? bridge : undefined;
}

// The host's rule (src/plugins/slug.ts); test/plugins/sdk-conformance.test.ts checks they agree.
export function pluginSlug(name) {
  return String(name)
    .replace(/^@/, "")
    .replace(/[^A-Za-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .toLowerCase();
}

// Freestyle's SDK ("freestyle-voice") names the same runtime values: svc answers that import with
// this module too, so a plugin written for Freestyle runs unedited.

export const OutputMode = Object.freeze({ Paste: "paste", Clipboard: "clipboard", None: "none" });

export const FreestyleEventType = Object.freeze({
  RecordingStarted: "recordingStarted",
  RecordingCommitted: "recordingCommitted",
  RecordingCancelled: "recordingCancelled",
  Transcribed: "transcribed",
  Cleaned: "cleaned",
  OutputDelivered: "outputDelivered",
  PipelineError: "pipelineError",
});

export const PipelineStage = Object.freeze({
  Capture: "capture",
  Transcribe: "transcribe",
  Cleanup: "cleanup",
  Transform: "transform",
  Output: "output",
});

export function parseAppContext(raw) {
  if (!raw) return undefined;
  let payload;
  try {
    payload = JSON.parse(raw);
  } catch {
    return { appName: raw };
  }
  if (payload === null || typeof payload !== "object") return { appName: String(raw) };
  const context = {};
  const app = payload.app ?? payload.appName;
  const title = payload.windowTitle ?? payload.title;
  if (app) Object.assign(context, { app, appName: app });
  if (title) Object.assign(context, { title, windowTitle: title });
  if (payload.url) context.url = payload.url;
  if (payload.bundleId) context.bundleId = payload.bundleId;
  return context;
}

export function createPluginLogger(base) {
  const line = (message, extra) => (extra ? `${message} ${JSON.stringify(extra)}` : message);
  return {
    debug: (message, extra) => base.debug(line(message, extra)),
    info: (message, extra) => base.info(line(message, extra)),
    warn: (message, extra) => base.warn(line(message, extra)),
    error: (message, extra) => base.error(line(message, extra)),
  };
}
