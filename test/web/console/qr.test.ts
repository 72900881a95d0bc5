import { describe, expect, test } from "bun:test";
import jsQR from "jsqr";
import { encodeQr, qrPath } from "../../../src/web/console/qr.ts";

// Every symbol is drawn from the SVG path the console renders and read back by jsQR, a decoder
// written apart from svc's encoder, as a phone's camera app would read it.

/** The path's rectangles painted black on white, `scale` pixels a module, as RGBA. */
function rasterize(path: string, modules: number, scale = 4) {
  const width = modules * scale;
  const pixels = new Uint8ClampedArray(width * width * 4).fill(255);
  for (const [, x, y, run] of path.matchAll(/M(\d+) (\d+)h(\d+)v1h-\d+z/g)) {
    for (let py = Number(y) * scale; py < (Number(y) + 1) * scale; py++) {
      for (let px = Number(x) * scale; px < (Number(x) + Number(run)) * scale; px++) {
        const at = (py * width + px) * 4;
        pixels[at] = pixels[at + 1] = pixels[at + 2] = 0;
      }
    }
  }
  return { pixels, width };
}

function decode(text: string) {
  const code = encodeQr(text);
  const path = qrPath(code, 4);
  const { pixels, width } = rasterize(path, code.size + 8);
  return { code, read: jsQR(pixels, width, width, { inversionAttempts: "dontInvert" }) };
}

// The most bytes each version holds at level M in byte mode.
const capacityM = [0, 14, 26, 42, 62, 84, 106, 122, 152, 180, 213];

describe("encodeQr", () => {
  test("a login link on a LAN address reads back as written", () => {
    const link = "http://192.168.1.20:4649/login?code=Zq3k-8_vXw0aB1cD2eF3gH4i";
    const { code, read } = decode(link);
    expect(read?.data).toBe(link);
    expect(code.size).toBe(17 + 4 * code.version);
  });

  test("a 150-character link reads back (version 8)", () => {
    const link = `https://dictation.example.home.arpa:8443/login?code=${"a1B2-c3_D".repeat(11)}`.slice(
      0,
      150,
    );
    const { code, read } = decode(link);
    expect(code.version).toBe(8);
    expect(read?.data).toBe(link);
  });

  test("each version from 1 to 10 is chosen when the text needs it, and reads back", () => {
    for (let version = 1; version <= 10; version++) {
      for (const length of [(capacityM[version - 1] ?? 0) + 1, capacityM[version] ?? 0]) {
        const text = Array.from(
          { length },
          (_, i) => "abcdefghijklmnopqrstuvwxyz0123456789/?=:._-"[(i * 7 + version) % 43],
        ).join("");
        const { code, read } = decode(text);
        expect({ length, version: code.version }).toEqual({ length, version });
        expect(read?.version).toBe(version);
        expect(read?.data).toBe(text);
      }
    }
  });

  test("different texts get different masks: the mask is chosen, not fixed", () => {
    const formats = new Set<string>();
    for (let i = 0; i < 24; i++) {
      const { modules, size } = encodeQr(`http://10.0.0.${i}:4649/login?code=${i}`);
      // The format information beside the top-left finder (row 8, columns 0 to 5) carries the mask.
      formats.add(Array.from({ length: 6 }, (_, x) => modules[8 * size + x]).join(""));
    }
    expect(formats.size).toBeGreaterThan(1);
  });

  test("text past version 10's 213 bytes is refused", () => {
    expect(() => encodeQr("x".repeat(214))).toThrow("too many for a QR code");
  });
});
