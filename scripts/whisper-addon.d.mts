// Types for scripts/whisper-addon.mjs, which stays plain JavaScript so npm's postinstall can run it with node.
export function hostPlatform(): string;
export const defaultOut: string;

export interface BuildOptions {
  platform?: string;
  out?: string;
  /** A command that prefixes every compiler call, e.g. ["chroot", "/path/to/debian-11"]. */
  wrap?: string[];
  log?: (line: string) => void;
}

/** The CPU builds, then the GPU builds unless `gpu` is false; the folder they are in. */
export function buildWhisperAddons(options?: BuildOptions & { gpu?: boolean }): Promise<string>;
/**
 * Only the GPU builds (the release makes them in a Debian 12 root); the path of each one made (or
 * already there with the same inputs), by interface.
 */
export function buildGpuAddons(options?: BuildOptions): Promise<{ vulkan?: string; cuda?: string }>;
