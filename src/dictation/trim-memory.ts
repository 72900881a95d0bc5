import { dlopen } from "bun:ffi";

// glibc keeps memory a program freed in its heap for the next allocation, and after a large block
// is freed it raises the size from which blocks get mappings of their own (up to 32 MiB), so a
// model's working buffers end up in that heap: freeing the model alone leaves the process as big.
// malloc_trim hands the free parts back. Elsewhere (musl, macOS) there is nothing to do.

let trim: (() => void) | null | undefined;

/**
 * Collects JavaScript garbage and has the engine return the pages it freed (Bun.shrink), then gives
 * the C heap's free memory back to the system (glibc's malloc_trim, where there is one).
 */
export function trimMemory(): void {
  Bun.gc(true);
  Bun.shrink();
  if (trim === undefined) {
    try {
      const libc = dlopen("libc.so.6", { malloc_trim: { args: ["u64"], returns: "i32" } });
      trim = () => libc.symbols.malloc_trim(0);
    } catch {
      trim = null;
    }
  }
  trim?.();
}
