import type { DownloadProgress } from "../dictation/engines/store/request.ts";

export interface Writer {
  write(text: string): unknown;
}

export interface ProgressReporter {
  update(progress: DownloadProgress): void;
  /** Ends the bar's line so later output starts on a fresh one. */
  finish(): void;
}

export const megabytes = (bytes: number) => `${(bytes / 1_000_000).toFixed(1)} MB`;

const barWidth = 30;
const redrawMs = 100;

function bar(fraction: number): string {
  const filled = Math.round(Math.min(1, fraction) * barWidth);
  return `[${"#".repeat(filled)}${".".repeat(barWidth - filled)}]`;
}

function describe(progress: DownloadProgress): string {
  const rate = `${megabytes(progress.bytesPerSecond)}/s`;
  if (progress.totalBytes === null) return `${megabytes(progress.receivedBytes)}  ${rate}`;
  return `${megabytes(progress.receivedBytes)} of ${megabytes(progress.totalBytes)}  ${rate}`;
}

const percentOf = (progress: DownloadProgress) =>
  progress.totalBytes ? Math.floor((progress.receivedBytes / progress.totalBytes) * 100) : null;

/**
 * A redrawn bar on a terminal (at most 10 redraws a second); elsewhere (logs, CI, pipes) one plain
 * line per 10 % so the output stays readable.
 */
export function createProgressReporter(label: string, out: Writer, tty: boolean): ProgressReporter {
  let lastDraw = Number.NEGATIVE_INFINITY;
  let lastStep = -1;
  let drawn = false;
  return {
    update(progress) {
      const percent = percentOf(progress);
      if (tty) {
        const now = performance.now();
        if (now - lastDraw < redrawMs && percent !== 100) return;
        lastDraw = now;
        const shown = percent === null ? "" : `${bar(percent / 100)} ${String(percent).padStart(3)}%  `;
        out.write(`\r\x1b[2K${label}  ${shown}${describe(progress)}`);
        drawn = true;
        return;
      }
      if (percent === null) return;
      // The first line of a resumed download says where it starts rather than listing the skipped steps.
      const step = Math.floor(percent / 10);
      if (step <= lastStep) return;
      lastStep = step;
      out.write(`${label}: ${percent}% (${describe(progress)})\n`);
    },
    finish() {
      if (tty && drawn) out.write("\n");
    },
  };
}
