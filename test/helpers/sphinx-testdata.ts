// Real speech with reference transcripts from Debian's pocketsphinx-testdata (public-domain LibriVox
// clips from "Sense and Sensibility", and goforward.raw). `.ci/run` installs the package.
import { readFileSync } from "node:fs";

export const TESTDATA = "/usr/share/pocketsphinx/test/data";

/** goforward.raw: 16 kHz mono little-endian int16 without a header; says "go forward ten meters". */
export function goForward(): Float32Array {
  return int16ToFloat(new Uint8Array(readFileSync(`${TESTDATA}/goforward.raw`)));
}

export interface Clip {
  id: string;
  reference: string;
  pcm: Float32Array;
}

/** The five LibriVox clips (16 kHz mono 16-bit WAV) with their transcripts. */
export function librivoxClips(): Clip[] {
  const lines = readFileSync(`${TESTDATA}/librivox/transcription`, "utf8").trim().split("\n");
  return lines.map((line) => {
    const match = /^<s> (.*) <\/s> \((.*)\)$/.exec(line.trim());
    if (!match?.[1] || !match[2]) throw new Error(`unexpected transcription line: ${line}`);
    const wav = new Uint8Array(readFileSync(`${TESTDATA}/librivox/${match[2]}.wav`));
    return { id: match[2], reference: match[1], pcm: int16ToFloat(wavData(wav)) };
  });
}

/** The bytes of a WAV file's `data` chunk. */
function wavData(wav: Uint8Array): Uint8Array {
  const view = new DataView(wav.buffer, wav.byteOffset, wav.byteLength);
  for (let off = 12; off + 8 <= wav.length; ) {
    const id = String.fromCharCode(...wav.subarray(off, off + 4));
    const size = view.getUint32(off + 4, true);
    if (id === "data") return wav.subarray(off + 8, Math.min(wav.length, off + 8 + size));
    off += 8 + size + (size & 1);
  }
  throw new Error("no data chunk");
}

function int16ToFloat(bytes: Uint8Array): Float32Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(bytes.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = view.getInt16(i * 2, true) / 32768;
  return out;
}
