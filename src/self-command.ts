// The command line that runs this same svc again with other arguments, for its helper processes
// (Silero VAD's, the GPU probe's): the executable itself when compiled, else Bun with main.ts.
import { fileURLToPath } from "node:url";

const compiled = /\/\$bunfs\/|\/~BUN\//.test(import.meta.url);

export function selfCommand(...args: string[]): string[] {
  if (compiled) return [process.execPath, ...args];
  return [process.execPath, fileURLToPath(new URL("./main.ts", import.meta.url)), ...args];
}
