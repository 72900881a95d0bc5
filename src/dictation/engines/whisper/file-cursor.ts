import { readSync } from "node:fs";

/** Sequential little-endian reads over a file through a 1 MiB window; `skip` jumps without reading. */
export interface FileCursor {
  readonly offset: number;
  u32(): number;
  i32(): number;
  peekByte(): number;
  text(length: number): string;
  skip(length: number): void;
  atEnd(): boolean;
}

const WINDOW = 1 << 20;

export function createFileCursor(fd: number, size: number, truncated: () => Error): FileCursor {
  const buf = Buffer.alloc(WINDOW);
  let start = 0;
  let filled = 0;
  let offset = 0;

  /** Makes bytes [offset, offset + n) available in `buf`, failing when the file ends first. */
  function ensure(n: number): number {
    if (offset + n > size) throw truncated();
    if (offset < start || offset + n > start + filled) {
      start = offset;
      filled = readSync(fd, buf, 0, Math.min(WINDOW, size - offset), offset);
      if (filled < n) throw truncated();
    }
    return offset - start;
  }

  return {
    get offset() {
      return offset;
    },
    u32() {
      const value = buf.readUInt32LE(ensure(4));
      offset += 4;
      return value;
    },
    i32() {
      const value = buf.readInt32LE(ensure(4));
      offset += 4;
      return value;
    },
    peekByte() {
      return buf.readUInt8(ensure(1));
    },
    text(length) {
      const at = ensure(length);
      offset += length;
      return buf.toString("utf8", at, at + length);
    },
    skip(length) {
      if (offset + length > size) throw truncated();
      offset += length;
    },
    atEnd() {
      return offset >= size;
    },
  };
}
