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
  const bridge = typeof globalThis === "object" ? globalThis.svc : undefined;
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
