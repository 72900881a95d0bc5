// Types for scripts/whisper-addon.mjs, which stays plain JavaScript so npm's postinstall can run it with node.
export function hostPlatform(): string;
export const defaultOut: string;
export function buildWhisperAddons(options?: {
  platform?: string;
  out?: string;
  /** A command that prefixes every compiler call, e.g. ["chroot", "/path/to/debian-11"]. */
  wrap?: string[];
  log?: (line: string) => void;
}): Promise<string>;
export function buildGpuAddons(options?: {
  platform?: string;
  out?: string;
  /** A command that prefixes every compiler call, e.g. ["chroot", "/path/to/debian-12"]. */
  wrap?: string[];
  log?: (line: string) => void;
}): Promise<void>;
