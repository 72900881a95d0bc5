import { folded, isWord, mergeMark, type Token, type WordToken } from "./transcript-tokens.ts";

/**
 * Spoken punctuation ("comma", "new line", "open quote") turned into symbols, English only.
 *
 * Most command words are also ordinary nouns ("the period of time", "a new line of shoes", "colon
 * cancer"), so a command is converted unless it reads as a noun phrase:
 * - the word before it is a determiner or possessive ("the period", "a comma", "my colon"), or a
 *   known compound modifier of that command ("trial period", "Oxford comma");
 * - the word after it is "of" or a known noun partner ("period costume", "new line character").
 * Anything else converts, wherever it stands: dictating "meet me at the office period see you
 * there" is normal, so requiring the end of the text would miss most real commands. The cost: a
 * noun with neither a determiner nor a listed partner still converts ("we stopped at period five"
 * → "we stopped at. Five"); the lists err toward keeping words.
 */

type CommandKind = "attach" | "open" | "close" | "break";

interface Command {
  words: readonly string[];
  kind: CommandKind;
  mark: string;
  modifiers: ReadonlySet<string>;
  followers: ReadonlySet<string>;
  /** Converted only when a closing command for its mark comes later ("quote … unquote"). */
  paired: boolean;
}

const DETERMINERS = new Set(
  [
    // No numerals: "step one period" is a command, like "step two period".
    "a an the this that these those each every any no some another same whole",
    "my your his her its our their whose which what per of during entire",
  ]
    .join(" ")
    .split(" "),
);

const command = (
  phrase: string,
  kind: CommandKind,
  mark: string,
  nounUse: { modifiers?: string; followers?: string; paired?: boolean } = {},
): Command => ({
  words: phrase.split(" "),
  kind,
  mark,
  modifiers: new Set(nounUse.modifiers?.split(" ") ?? []),
  followers: new Set(["of", ...(nounUse.followers?.split(" ") ?? [])]),
  paired: nounUse.paired ?? false,
});

const PERIOD_NOUN = {
  modifiers:
    "trial grace waiting time notice probation probationary transition billing reporting cooling holding " +
    "rest free school class study lunch sample historical menstrual vesting lockup first second third " +
    "last next final",
  followers: "costume costumes drama dramas piece pieces pain pains cramps poverty products tracker",
};

const COMMANDS: readonly Command[] = [
  command("comma", "attach", ",", {
    modifiers: "oxford serial inverted",
    followers: "splice separated delimited separator",
  }),
  command("period", "attach", ".", PERIOD_NOUN),
  command("full stop", "attach", "."),
  command("fullstop", "attach", "."),
  command("full-stop", "attach", "."),
  command("question mark", "attach", "?", { modifiers: "big huge" }),
  command("exclamation mark", "attach", "!"),
  command("exclamation point", "attach", "!"),
  command("colon", "attach", ":", {
    modifiers: "sigmoid transverse ascending descending spastic",
    followers: "cancer polyps polyp surgery cleanse health screening",
  }),
  command("semicolon", "attach", ";"),
  command("semi colon", "attach", ";"),
  command("semi-colon", "attach", ";"),
  command("ellipsis", "attach", "..."),
  command("dot dot dot", "attach", "..."),
  command("new line", "break", "\n", { followers: "item items character characters break breaks" }),
  command("newline", "break", "\n", { followers: "character characters" }),
  command("new-line", "break", "\n", { followers: "character characters" }),
  command("new paragraph", "break", "\n\n"),
  command("open quote", "open", '"'),
  command("open quotes", "open", '"'),
  command("begin quote", "open", '"'),
  // A bare "quote" is mostly a verb ("I quote him"): it opens only a quotation closed later.
  command("quote", "open", '"', { followers: "unquote", paired: true }),
  command("close quote", "close", '"'),
  command("close quotes", "close", '"'),
  command("end quote", "close", '"'),
  command("unquote", "close", '"', { modifiers: "quote" }),
  command("open paren", "open", "("),
  command("open parenthesis", "open", "("),
  command("open parentheses", "open", "("),
  command("close paren", "close", ")"),
  command("close parenthesis", "close", ")"),
  command("close parentheses", "close", ")"),
  command("end paren", "close", ")"),
  command("end parenthesis", "close", ")"),
  command("end parentheses", "close", ")"),
];

const BY_FIRST_WORD = new Map<string, Command[]>();
for (const entry of [...COMMANDS].sort((a, b) => b.words.length - a.words.length)) {
  const first = entry.words[0] ?? "";
  BY_FIRST_WORD.set(first, [...(BY_FIRST_WORD.get(first) ?? []), entry]);
}

function spelledAt(tokens: readonly Token[], index: number, entry: Command): boolean {
  return entry.words.every((expected, offset) => {
    const token = tokens[index + offset];
    if (!isWord(token) || token.lead !== "" || folded(token) !== expected) return false;
    return offset === entry.words.length - 1 || token.trail === "";
  });
}

function readsAsNoun(tokens: readonly Token[], index: number, entry: Command): boolean {
  const before = tokens[index - 1];
  if (isWord(before) && before.trail === "" && before.core !== "") {
    const previous = folded(before);
    if (DETERMINERS.has(previous) || entry.modifiers.has(previous)) return true;
  }
  const last = tokens[index + entry.words.length - 1];
  const after = tokens[index + entry.words.length];
  if (!isWord(last) || last.trail !== "" || !isWord(after) || after.lead !== "") return false;
  return entry.followers.has(folded(after));
}

function commandAt(tokens: readonly Token[], index: number): Command | undefined {
  const token = tokens[index];
  if (!isWord(token)) return undefined;
  return BY_FIRST_WORD.get(folded(token))?.find(
    (entry) =>
      spelledAt(tokens, index, entry) &&
      !readsAsNoun(tokens, index, entry) &&
      (!entry.paired || closedLater(tokens, index + entry.words.length, entry.mark)),
  );
}

const CLOSING: Readonly<Record<string, string>> = { '"': '"', "(": ")" };

/** Whether a closing command for `openMark` follows; it looks at closing commands only. */
function closedLater(tokens: readonly Token[], from: number, openMark: string): boolean {
  for (let index = from; index < tokens.length; index++) {
    const token = tokens[index];
    const candidates = isWord(token) ? BY_FIRST_WORD.get(folded(token)) : undefined;
    const closes = candidates?.some(
      (entry) =>
        entry.kind === "close" &&
        entry.mark === CLOSING[openMark] &&
        spelledAt(tokens, index, entry) &&
        !readsAsNoun(tokens, index, entry),
    );
    if (closes) return true;
  }
  return false;
}

export function convertSpokenPunctuation(tokens: readonly Token[]): Token[] {
  const out: Token[] = [];
  // Words whose trail ends with a mark the speaker said: a closing quote keeps it inside.
  const spoken = new WeakSet<WordToken>();
  let pendingLead = "";
  for (let index = 0; index < tokens.length; ) {
    const token = tokens[index];
    const found = commandAt(tokens, index);
    if (found === undefined) {
      if (isWord(token)) {
        out.push(pendingLead === "" ? token : { ...token, lead: pendingLead + token.lead });
        pendingLead = "";
      } else if (token) out.push(token);
      index += 1;
      continue;
    }
    const last = tokens[index + found.words.length - 1];
    pendingLead = applyCommand(out, found, isWord(last) ? last.trail : "", pendingLead, spoken);
    index += found.words.length;
  }
  // An "open quote" with nothing after it opens nothing; it is dropped.
  return out;
}

/**
 * Applies one command to the output so far; returns the opening marks still waiting for a word.
 * `commandTrail` is what the engine wrote after the command's last word ("Period.", "quote,").
 */
function applyCommand(
  out: Token[],
  found: Command,
  commandTrail: string,
  pendingLead: string,
  spoken: WeakSet<WordToken>,
): string {
  const previous = out.at(-1);
  const target: WordToken | undefined = isWord(previous) ? previous : undefined;
  // The engine often punctuates the command word itself ("Period."); only brackets survive.
  const leftover = commandTrail.replace(/[,.;:?!…]/gu, "");
  switch (found.kind) {
    case "open":
      return pendingLead + found.mark;
    case "break":
      out.push({ kind: "break", text: found.mark === "\n" ? "\n" : "\n\n" });
      return pendingLead;
    case "attach":
      if (target) {
        target.trail = mergeMark(target.trail, found.mark) + leftover;
        spoken.add(target);
      }
      return pendingLead;
    case "close":
      if (target) {
        target.trail = closeTrail(target.trail, found.mark, commandTrail, leftover, spoken.has(target));
        spoken.delete(target);
      }
      return pendingLead;
  }
}

/**
 * A closing mark after the last quoted word. The engine's comma or colon there is the pause
 * before the command, not the speaker's ("hello, close quote" → `hello"`), but a spoken one stays
 * like a spoken question mark ("hello comma close quote" → `hello,"`). The engine's sentence end
 * after the command ("close quote.") still ends the sentence unless one is already inside.
 */
function closeTrail(
  trail: string,
  mark: string,
  commandTrail: string,
  leftover: string,
  spokenMark: boolean,
): string {
  const inside = spokenMark ? trail : trail.replace(/[,;:]+$/u, "");
  const end = /[.?!]/u.exec(commandTrail)?.[0];
  const ended = /[.?!…]$/u.test(inside);
  return inside + mark + (end !== undefined && !ended ? end : "") + leftover;
}
