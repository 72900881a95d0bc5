import { fourCC } from "./wav.ts";

/** The `audio-decode` codec that handles a compressed container. */
export type DecoderName = "webm" | "opus" | "oga" | "mp3" | "flac" | "m4a" | "aac";

/** What the first bytes say the body is. */
export type Sniffed =
  | { kind: "wav" }
  | { kind: "compressed"; format: string; decoder: DecoderName }
  | { kind: "unsupported"; what: string };

/**
 * Recognises a container by its magic bytes. `weak` also accepts a bare MPEG/ADTS frame sync,
 * which is only two bytes and turns up inside raw PCM, so it is off when the client said "raw".
 */
export function sniffAudio(bytes: Uint8Array, weak = true): Sniffed | undefined {
  const head = fourCC(bytes, 0);
  if (bytes.length >= 12 && (head === "RIFF" || head === "RF64" || head === "BW64")) {
    const form = fourCC(bytes, 8);
    if (form === "WAVE") return { kind: "wav" };
    return {
      kind: "unsupported",
      what: /^[ -~]{4}$/.test(form) ? `a RIFF "${form}" file` : "a RIFF file that is not WAVE",
    };
  }
  if (head === "RIFX") return { kind: "unsupported", what: "a big-endian (RIFX) WAV file" };
  if (head === "\x1a\x45\xdf\xa3") return compressed("webm", "webm");
  if (head === "OggS") return sniffOgg(bytes);
  if (head === "fLaC") return compressed("flac", "flac");
  if (fourCC(bytes, 4) === "ftyp") return compressed("mp4", "m4a");
  if (head.startsWith("ID3")) return sniffAfterId3(bytes);
  if (head === "FORM") return { kind: "unsupported", what: "an AIFF/IFF file" };
  if (!weak) return undefined;
  if (isMpegAudioFrame(bytes, 0)) return compressed("mp3", "mp3");
  if (isAdtsFrame(bytes, 0)) return compressed("aac", "aac");
  return undefined;
}

const compressed = (format: string, decoder: DecoderName): Sniffed => ({
  kind: "compressed",
  format,
  decoder,
});

/** The first Ogg page's first packet names the codec (RFC 7845, Vorbis I spec, Ogg FLAC mapping). */
function sniffOgg(bytes: Uint8Array): Sniffed {
  const segments = bytes[26] ?? 0;
  const start = 27 + segments;
  const packet = String.fromCharCode(...bytes.subarray(start, start + 8));
  if (packet.startsWith("OpusHead")) return compressed("ogg", "opus");
  if (packet.startsWith("\x01vorbis")) return compressed("ogg", "oga");
  if (packet.startsWith("\x7fFLAC")) return compressed("ogg", "flac");
  if (packet.startsWith("Speex")) return { kind: "unsupported", what: "Ogg Speex" };
  return { kind: "unsupported", what: "an Ogg stream with an unknown codec" };
}

/** ID3v2 tags prefix MP3 (and sometimes AAC or FLAC); what follows the tag decides. */
function sniffAfterId3(bytes: Uint8Array): Sniffed {
  const b = (i: number) => (bytes[i] ?? 0) & 0x7f;
  const footer = (bytes[5] ?? 0) & 0x10 ? 10 : 0;
  const end = 10 + footer + ((b(6) << 21) | (b(7) << 14) | (b(8) << 7) | b(9));
  if (isAdtsFrame(bytes, end)) return compressed("aac", "aac");
  if (fourCC(bytes, end) === "fLaC") return compressed("flac", "flac");
  return compressed("mp3", "mp3");
}

/** MPEG-1/2/2.5 audio header: sync, a real version/layer, a bitrate and a sample rate index. */
function isMpegAudioFrame(bytes: Uint8Array, at: number): boolean {
  const b1 = bytes[at + 1] ?? 0;
  const b2 = bytes[at + 2] ?? 0;
  if (bytes[at] !== 0xff || (b1 & 0xe0) !== 0xe0) return false;
  const version = (b1 >> 3) & 3;
  const layer = (b1 >> 1) & 3;
  const bitrate = b2 >> 4;
  return version !== 1 && layer !== 0 && bitrate !== 0 && bitrate !== 15 && (b2 & 0x0c) !== 0x0c;
}

/** AAC ADTS header: 12-bit sync, layer 0, a valid sampling frequency index (ISO 14496-3 1.A.2). */
function isAdtsFrame(bytes: Uint8Array, at: number): boolean {
  const b1 = bytes[at + 1] ?? 0;
  return bytes[at] === 0xff && (b1 & 0xf6) === 0xf0 && ((bytes[at + 2] ?? 0) >> 2) % 16 < 13;
}
