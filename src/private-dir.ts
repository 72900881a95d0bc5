import { chmodSync, mkdirSync, statSync } from "node:fs";

/**
 * Makes `dir` (and any missing parent) as svc's user's alone, 0700 whatever the umask, before
 * anything is written in it. A folder that exists and is svc's keeps its mode, less the group and
 * other write bits: nobody else may drop a file (a plugin svc would run) into svc's folders.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = statSync(dir);
  const uid = process.getuid?.();
  if (uid !== undefined && stat.uid === uid && (stat.mode & 0o022) !== 0) chmodSync(dir, stat.mode & 0o755);
}
