// A plugin names its icon (`svc.icon` or Freestyle's `freestyle.icon` in its manifest): the console
// draws known names, lucide-style (`Sparkles`, `FileMusic`) or lower-case (`sparkles`,
// `file-music`), as inline SVG, so no emoji font is needed; an emoji is shown as it is, and other
// names get a puzzle piece. The drawings are svc's own, on a 24×24 grid, stroked.

/** Stroke paths on a 24×24 grid, by normalised name (lower case, letters and digits only). */
const drawings: Record<string, readonly string[]> = {
  sparkles: [
    "M10 3l1.8 5.2L17 10l-5.2 1.8L10 17l-1.8-5.2L3 10l5.2-1.8z",
    "M18 3v4",
    "M16 5h4",
    "M19 16v4",
    "M17 18h4",
  ],
  smile: [
    "M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18z",
    "M8 14c1 1.5 2.4 2.2 4 2.2s3-.7 4-2.2",
    "M9 9.5h.01",
    "M15 9.5h.01",
  ],
  filemusic: [
    "M14 3H6v18h12V7z",
    "M14 3v4h4",
    "M10 17.5a1.5 1.5 0 1 1-3 0a1.5 1.5 0 1 1 3 0z",
    "M10 17.5V11l4-1v5.5",
    "M14 15.5a1.5 1.5 0 1 1-3 0",
  ],
  zap: ["M13 2L4 14h7l-1 8 9-12h-7z"],
  mic: ["M9 5a3 3 0 0 1 6 0v6a3 3 0 0 1-6 0z", "M5 11a7 7 0 0 0 14 0", "M12 18v3", "M8 21h8"],
  book: ["M4 5c3-1 6-1 8 1v14c-2-2-5-2-8-1z", "M20 5c-3-1-6-1-8 1v14c2-2 5-2 8-1z"],
  filter: ["M3 4h18l-7 8v6l-4 2v-8z"],
  shield: ["M12 3l8 3v6c0 4.5-3.4 8-8 9c-4.6-1-8-4.5-8-9V6z"],
  globe: [
    "M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18z",
    "M3 12h18",
    "M12 3c2.5 2.5 3.8 5.5 3.8 9s-1.3 6.5-3.8 9c-2.5-2.5-3.8-5.5-3.8-9s1.3-6.5 3.8-9z",
  ],
  star: ["M12 3l2.7 5.6 6.1.8-4.4 4.3 1 6.1L12 17l-5.4 2.8 1-6.1-4.4-4.3 6.1-.8z"],
  settings: [
    "M12 9a3 3 0 1 0 0 6a3 3 0 1 0 0-6z",
    "M12 2v3",
    "M12 19v3",
    "M2 12h3",
    "M19 12h3",
    "M4.9 4.9l2.1 2.1",
    "M17 17l2.1 2.1",
    "M4.9 19.1L7 17",
    "M17 7l2.1-2.1",
  ],
  clock: ["M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18z", "M12 7v5l3 2"],
  heart: ["M12 20s-7-4.4-8.5-9A4.5 4.5 0 0 1 12 7a4.5 4.5 0 0 1 8.5 4c-1.5 4.6-8.5 9-8.5 9z"],
  bell: ["M6 16V11a6 6 0 0 1 12 0v5l2 2H4z", "M10 20a2 2 0 0 0 4 0"],
  search: ["M10.5 4a6.5 6.5 0 1 0 0 13a6.5 6.5 0 1 0 0-13z", "M15.5 15.5L21 21"],
  check: ["M4 12.5l5 5L20 6.5"],
  mail: ["M3 6h18v12H3z", "M3 7l9 6 9-6"],
  messagesquare: ["M4 4h16v12H9l-5 4z"],
  code: ["M8 7l-5 5 5 5", "M16 7l5 5-5 5"],
  terminal: ["M3 4h18v16H3z", "M7 9l3 3-3 3", "M12 15h5"],
  music: ["M9 18V5l11-2v13", "M9 18a3 3 0 1 1-6 0a3 3 0 1 1 6 0z", "M20 16a3 3 0 1 1-6 0a3 3 0 1 1 6 0z"],
  bot: ["M5 8h14v11H5z", "M12 4v4", "M9 13h.01", "M15 13h.01", "M2 13h3", "M19 13h3"],
  wand: ["M4 20L15 9", "M15 4v2", "M19 8h2", "M18 5l1.5-1.5", "M13 9l2 2"],
  list: ["M9 6h12", "M9 12h12", "M9 18h12", "M4 6h.01", "M4 12h.01", "M4 18h.01"],
  languages: [
    "M4 5h9",
    "M8.5 3v2",
    "M11 5c-1 4-3.5 7-7 9",
    "M6 9c1.5 2.5 3.5 4 6 5",
    "M13 21l4-9 4 9",
    "M14.5 18h5",
  ],
  puzzle: ["M4 8h4a2 2 0 1 1 4 0h4v4a2 2 0 1 1 0 4v4H4z"],
};

/** Names that mean the same drawing (svc's earlier names, lucide's synonyms). */
const aliases: Record<string, string> = {
  microphone: "mic",
  books: "book",
  bookopen: "book",
  dictionary: "book",
  broom: "filter",
  shieldcheck: "shield",
  language: "languages",
  translate: "languages",
  gear: "settings",
  cog: "settings",
  history: "clock",
  bolt: "zap",
  robot: "bot",
  chat: "messagesquare",
  messagecircle: "messagesquare",
  wandsparkles: "wand",
  magic: "wand",
  filetext: "list",
  clipboard: "list",
  text: "list",
  note: "list",
  audiolines: "music",
  filemusic2: "filemusic",
};

/** The drawing's paths for an icon name, or null when the name is an emoji (shown as text). */
export function iconPaths(name: string | null): readonly string[] | null {
  const trimmed = (name ?? "").trim();
  if (/[^\x20-\x7e]/.test(trimmed)) return null;
  const key = trimmed.toLowerCase().replace(/[^a-z0-9]/g, "");
  return drawings[aliases[key] ?? key] ?? drawings.puzzle ?? [];
}

/** An emoji a plugin gave as its icon, at most a few characters; empty for a named icon. */
export function iconEmoji(name: string | null): string {
  const trimmed = (name ?? "").trim();
  return /[^\x20-\x7e]/.test(trimmed) ? [...trimmed].slice(0, 4).join("") : "";
}
