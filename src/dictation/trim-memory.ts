import { dlopen } from "bun:ffi";

// glibc keeps memory a program freed in its heap for the next allocation, and after a large block
// is freed it raises the size from which blocks get mappings of their own (up to 32 MiB), so a
// model's working buffers end up in that heap: freeing the model alone leaves the process as big.
// malloc_trim hands the free parts back. Elsewhere (musl, macOS) there is nothing to do.

/** mallopt's parameter numbers (glibc's malloc.h). */
const M_TRIM_THRESHOLD = -1;
const M_MMAP_THRESHOLD = -3;
const MiB = 1024 * 1024;

interface Libc {
  trim(): void;
  /** The free top a heap keeps when a block is freed into it, and the size from which blocks get mappings of their own. */
  thresholds(trim: number, mmap: number): void;
}
let libc: Libc | null | undefined;

function openLibc(): Libc | null {
  if (libc !== undefined) return libc;
  try {
    const { symbols } = dlopen("libc.so.6", {
      malloc_trim: { args: ["u64"], returns: "i32" },
      mallopt: { args: ["i32", "i32"], returns: "i32" },
    });
    libc = {
      trim: () => symbols.malloc_trim(0),
      thresholds(trim, mmap) {
        symbols.mallopt(M_TRIM_THRESHOLD, trim);
        symbols.mallopt(M_MMAP_THRESHOLD, mmap);
      },
    };
  } catch {
    libc = null;
  }
  return libc;
}

/**
 * Collects JavaScript garbage and has the engine return the pages it freed (Bun.shrink), then gives
 * the C heap's free memory back to the system (glibc's malloc_trim, where there is one).
 */
function trimMemory(): void {
  Bun.gc(true);
  Bun.shrink();
  openLibc()?.trim();
}

/**
 * Runs `release`, which frees what was loaded and ends the threads that loaded it, then trims
 * (`trimMemory`). A worker thread (the sphinx decoder's) allocates from a heap of its own whose free
 * top malloc_trim leaves alone: only a free() in that heap gives it back, and only past the trim
 * threshold, which glibc raises to twice the largest block it unmapped (up to 64 MiB). So while
 * `release` runs, the threshold is glibc's default (128 KiB). Setting it ends glibc's adjustment for
 * good, so it is then left where that adjustment ends once a model was freed (64 MiB, blocks mapped
 * from 32 MiB): working buffers stay in the heap between dictations, as before.
 */
export async function releaseMemory(release: () => Promise<void>): Promise<void> {
  const c = openLibc();
  c?.thresholds(128 * 1024, 32 * MiB);
  try {
    await release();
    trimMemory();
  } finally {
    c?.thresholds(64 * MiB, 32 * MiB);
  }
}
