// How `svc dictate` shows a live dictation on stderr. On a terminal the guess at the piece being
// spoken is one line rewritten in place (a carriage return, then erase the line), and a committed
// piece replaces it for good; elsewhere (a pipe, a log file) every message is its own plain line,
// as a reader of the file expects.

export interface LiveLines {
  /** A revisable guess at the piece being spoken. */
  partial(text: string): void;
  /** A piece the engine has settled. */
  commit(text: string): void;
  /** Takes the guess off the screen, before the final text or an error is printed. */
  clear(): void;
}

/** Carriage return, then ANSI "erase the whole line". */
const rewrite = "\r\x1b[2K";

export function createLiveLines(
  write: (text: string) => void,
  terminal: { tty: boolean; columns?: number },
): LiveLines {
  if (!terminal.tty) {
    return {
      partial: (text) => write(`~ ${text}\n`),
      commit: (text) => write(`+ ${text}\n`),
      clear: () => {},
    };
  }
  let shown = false;
  // A line that wraps cannot be rewritten from its start: keep the guess's last words on one line.
  const fit = (line: string) => {
    const width = Math.max(10, (terminal.columns ?? 80) - 1);
    if (line.length <= width) return line;
    const tail = line.slice(line.length - (width - 3));
    // Start at a whole word where there is one.
    const space = tail.indexOf(" ");
    return `~ …${space >= 0 && space < tail.length - 1 ? tail.slice(space + 1) : tail}`;
  };
  return {
    partial(text) {
      write(`${rewrite}${fit(`~ ${text}`)}`);
      shown = true;
    },
    commit(text) {
      write(`${shown ? rewrite : ""}+ ${text}\n`);
      shown = false;
    },
    clear() {
      if (shown) write(rewrite);
      shown = false;
    },
  };
}
