import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from "node:fs";
import { AppError } from "../../../errors.ts";
import { removeFile } from "./files.ts";

/** Lock files this process holds; a lock naming this pid that is not in here was left by an earlier run. */
const heldHere = new Set<string>();

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
};

function owner(path: string): { pid: number | undefined; ageMs: number } {
  try {
    const pid = Number.parseInt(readFileSync(path, "utf8"), 10);
    return {
      pid: Number.isInteger(pid) && pid > 0 ? pid : undefined,
      ageMs: Date.now() - statSync(path).mtimeMs,
    };
  } catch {
    return { pid: undefined, ageMs: Number.POSITIVE_INFINITY };
  }
}

const busy = (what: string, pid?: number) =>
  new AppError(
    "download_in_progress",
    `${what} is already being downloaded${pid ? ` by process ${pid}` : ""}.`,
  );

/**
 * Takes an exclusive lock file holding this process id, so a CLI pull and the server never append to the
 * same partial file. A lock left by a process that died (or by an earlier run that had this pid, as PID 1
 * in a restarted container does) is taken over. Returns the release function.
 */
export function acquireLock(path: string, what: string): () => void {
  if (heldHere.has(path)) throw busy(what);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      heldHere.add(path);
      return () => {
        heldHere.delete(path);
        removeFile(path);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const { pid, ageMs } = owner(path);
    // An empty lock a few seconds old is being written right now, not a dead one.
    const held = pid === undefined ? ageMs < 5000 : pid !== process.pid && isAlive(pid);
    if (held) throw busy(what, pid);
    try {
      unlinkSync(path);
    } catch {
      // Another process took it over first; the next attempt reports it.
    }
  }
  throw busy(what);
}
