import { invalidAudio } from "./errors.ts";
import { fourCC } from "./wav.ts";

// audio-decode's MP4 demuxer sizes arrays from table counts in the header (an 11 KB file whose
// stsz claims 200 M samples took 18 s and 1.8 GB). This walks the boxes the way that demuxer does
// and refuses any table whose count does not fit in its box or the file, before it runs.

/** What the header says, for refusing an over-long file before decoding it. */
export interface Mp4Facts {
  /** The audio track's (else the movie's) declared duration. */
  declaredMs: number | undefined;
  /** True when the sample tables come before the samples, so decoding can stream. */
  moovFirst: boolean;
}

const CONTAINERS = new Set(["moov", "trak", "mdia", "minf", "stbl", "udta", "edts", "sinf", "wave", "mvex"]);
const CONTAINERS_TOO = new Set(["moof", "traf"]);
const MAX_DEPTH = 16;
// Bytes per entry of the count-prefixed tables the demuxer reads (count at offset 4, rows at 8).
const ROW_BYTES: Record<string, number> = { stco: 4, co64: 8, stsc: 12, stts: 8, ctts: 8, stss: 4 };

interface Walk {
  bytes: Uint8Array;
  view: DataView;
  samples: number;
  movieMs: number | undefined;
  audioMs: number | undefined;
  track: { handler?: string; ms?: number } | undefined;
  moovFirst: boolean | undefined;
}

export function inspectMp4(bytes: Uint8Array): Mp4Facts {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const walk: Walk = {
    bytes,
    view,
    samples: 0,
    movieMs: undefined,
    audioMs: undefined,
    track: undefined,
    moovFirst: undefined,
  };
  boxes(walk, 0, bytes.length, 0);
  if (walk.samples > bytes.length)
    throw invalidAudio("The MP4 sample tables list more samples than the file holds");
  return { declaredMs: walk.audioMs ?? walk.movieMs, moovFirst: walk.moovFirst ?? false };
}

function boxes(walk: Walk, start: number, end: number, depth: number): void {
  if (depth > MAX_DEPTH) throw invalidAudio("The MP4 boxes are nested too deeply");
  const { bytes, view } = walk;
  for (let offset = start; offset < end - 8; ) {
    let size = view.getUint32(offset);
    const type = fourCC(bytes, offset + 4);
    // Mirrors the demuxer: size 0 runs to the end, a 64-bit size is read from its low word.
    if (size === 0) size = end - offset;
    else if (size === 1 && offset + 16 <= end) size = view.getUint32(offset + 12);
    if (size < 8) return;
    if (depth === 0 && walk.moovFirst === undefined && (type === "moov" || type === "mdat")) {
      walk.moovFirst = type === "moov";
    }
    const body = offset + 8;
    const boxEnd = Math.min(offset + size, end);
    if (type === "stsd") sampleEntries(walk, body, boxEnd, depth);
    else if (type === "meta") boxes(walk, body + 4, boxEnd, depth + 1);
    else if (type === "trak") track(walk, body, boxEnd, depth);
    else if (CONTAINERS.has(type) || CONTAINERS_TOO.has(type)) boxes(walk, body, boxEnd, depth + 1);
    else if (type !== "mdat") leaf(walk, type, body, boxEnd);
    offset += size;
  }
}

function track(walk: Walk, body: number, end: number, depth: number): void {
  walk.track = {};
  boxes(walk, body, end, depth + 1);
  if (walk.track.handler === "soun" && walk.audioMs === undefined) walk.audioMs = walk.track.ms;
  walk.track = undefined;
}

/** Sample descriptions nest boxes after a version-dependent header (QuickTime v0/v1/v2). */
function sampleEntries(walk: Walk, body: number, end: number, depth: number): void {
  const { view } = walk;
  for (let pos = body + 8; pos + 16 <= end; ) {
    const size = view.getUint32(pos);
    if (size < 16) return;
    const version = pos + 18 <= end ? view.getUint16(pos + 16) : 0;
    const head =
      version === 2 ? (pos + 40 <= end && view.getUint32(pos + 36)) || 72 : version === 1 ? 52 : 36;
    if (size > head) boxes(walk, pos + head, Math.min(pos + size, end), depth + 1);
    pos += size;
  }
}

function leaf(walk: Walk, type: string, body: number, end: number): void {
  const { view } = walk;
  const length = end - body;
  const u32 = (at: number) => (body + at + 4 <= end ? view.getUint32(body + at) : 0);
  if (type === "mvhd" || type === "mdhd") {
    const ms = headerDuration(view, body, end);
    if (type === "mvhd") walk.movieMs = ms;
    else if (walk.track) walk.track.ms = ms;
  } else if (type === "hdlr" && walk.track) {
    walk.track.handler = fourCC(walk.bytes, body + 8);
  } else if (type === "stsz") {
    const sampleSize = u32(4);
    const count = u32(8);
    if (sampleSize ? count * sampleSize > walk.bytes.length : 12 + count * 4 > length) tableLies(type);
    walk.samples += count;
  } else if (type === "elst") {
    if (8 + u32(4) * (walk.bytes[body] === 1 ? 20 : 12) > length) tableLies(type);
  } else if (type === "trun") {
    const flags = u32(0) & 0xffffff;
    const header = 8 + (flags & 1 ? 4 : 0) + (flags & 4 ? 4 : 0);
    const perSample = 4 * [0x100, 0x200, 0x400, 0x800].filter((bit) => flags & bit).length;
    if (header + u32(4) * perSample > length) tableLies(type);
    walk.samples += u32(4);
  } else if (ROW_BYTES[type] !== undefined) {
    if (8 + u32(4) * (ROW_BYTES[type] ?? 0) > length) tableLies(type);
  }
}

/** mvhd/mdhd: version 0 has 32-bit fields, version 1 64-bit; all-ones means "unknown". */
function headerDuration(view: DataView, body: number, end: number): number | undefined {
  const v1 = view.getUint8(body) === 1;
  if (body + (v1 ? 32 : 20) > end) return undefined;
  const timescale = view.getUint32(body + (v1 ? 20 : 12));
  const duration = v1
    ? view.getUint32(body + 24) * 2 ** 32 + view.getUint32(body + 28)
    : view.getUint32(body + 16);
  const unknown = v1 ? duration >= 2 ** 64 - 1 : duration === 0xffffffff;
  return timescale && duration && !unknown ? (duration / timescale) * 1000 : undefined;
}

function tableLies(type: string): never {
  throw invalidAudio(`The MP4 ${type} table declares more entries than its box holds`);
}
