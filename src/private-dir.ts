import { chmodSync, mkdirSync, statSync } from "node:fs";

/** The sticky bit: a folder every user shares, each deleting only their own files (/tmp). */
const STICKY = 0o1000;

/**
 * Makes `dir` (and any missing parent) as svc's user's alone, 0700 whatever the umask, before
 * anything is written in it. A folder that exists and is svc's keeps its mode, less the group and
 * other write bits: nobody else may drop a file (a plugin svc would run) into svc's folders.
 * A sticky folder is shared by design (/tmp, /var/tmp, /dev/shm when svc runs as root): it is
 * never changed, or every other user of the machine would lose it.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = statSync(dir);
  const uid = process.getuid?.();
  if (uid === undefined || stat.uid !== uid || (stat.mode & STICKY) !== 0) return;
  if ((stat.mode & 0o022) !== 0) chmodSync(dir, stat.mode & 0o755);
}
