// A plugin names its icon (`svc.icon` in its manifest, SPEC.md §2): the console draws known names
// as a glyph, shows an emoji as it is, and gives other names a puzzle piece.
const glyphs: Record<string, string> = {
  sparkles: "✨",
  megaphone: "📣",
  microphone: "🎙️",
  mic: "🎙️",
  book: "📖",
  books: "📚",
  dictionary: "📖",
  text: "📝",
  pencil: "✏️",
  note: "📝",
  filter: "🧹",
  broom: "🧹",
  shield: "🛡️",
  lock: "🔒",
  globe: "🌐",
  language: "🌐",
  translate: "🌐",
  star: "⭐",
  wand: "🪄",
  magic: "🪄",
  gear: "⚙️",
  settings: "⚙️",
  tools: "🛠️",
  chart: "📊",
  clock: "🕒",
  history: "🕒",
  bolt: "⚡",
  robot: "🤖",
  brain: "🧠",
  check: "✅",
  list: "📋",
  clipboard: "📋",
  mail: "✉️",
  chat: "💬",
  code: "💻",
  terminal: "💻",
  music: "🎵",
  heart: "❤️",
  bell: "🔔",
  search: "🔍",
  puzzle: "🧩",
};

/** The glyph for a plugin's icon name. */
export function iconGlyph(name: string | null): string {
  if (!name) return glyphs.puzzle ?? "";
  const trimmed = name.trim();
  // Anything beyond ASCII is taken as the glyph itself (an emoji), at most a few characters.
  if (/[^\x20-\x7e]/.test(trimmed)) return [...trimmed].slice(0, 4).join("");
  return glyphs[trimmed.toLowerCase()] ?? glyphs.puzzle ?? "";
}
