import { describe, expect, test } from "bun:test";
import type { AppContext } from "../../src/formats/app-context.ts";
import { builtinFormats } from "../../src/formats/builtins.ts";
import { compileFormats, createFormatMatcher } from "../../src/formats/matcher.ts";
import { compilePattern } from "../../src/formats/pattern.ts";
import { defaultFormatStyle } from "../../src/formats/style.ts";
import type { Format } from "../../src/formats/types.ts";

let nextId = 1;
const format = (appPattern: string, fields: Partial<Format> = {}): Format => ({
  id: nextId++,
  label: appPattern,
  appPattern,
  instructions: "",
  enabled: true,
  priority: 0,
  style: defaultFormatStyle,
  isBuiltin: false,
  builtinKey: null,
  createdAt: "",
  updatedAt: "",
  ...fields,
});

const builtins = builtinFormats.map((builtin) =>
  format(builtin.appPattern, { ...builtin, isBuiltin: true, builtinKey: builtin.key }),
);

describe("built-in formats", () => {
  test("there are at least eight, each with a valid pattern, instructions and a unique key", () => {
    expect(builtinFormats.length).toBeGreaterThanOrEqual(8);
    expect(new Set(builtinFormats.map((builtin) => builtin.key)).size).toBe(builtinFormats.length);
    for (const builtin of builtinFormats) {
      expect(compilePattern(builtin.appPattern).problems).toEqual([]);
      expect(builtin.instructions.length).toBeGreaterThan(60);
    }
  });

  test.each<[AppContext, string | null]>([
    [{ app: "Mail" }, "email"],
    [{ app: "Microsoft Outlook" }, "email"],
    [{ app: "Google Chrome", url: "https://mail.google.com/mail/u/0/#inbox" }, "email"],
    [{ app: "Slack" }, "team-chat"],
    [{ app: "Microsoft Teams" }, "team-chat"],
    [{ app: "Discord" }, "team-chat"],
    [{ app: "Firefox", url: "https://app.slack.com/client/T1/C2" }, "team-chat"],
    [{ app: "WhatsApp" }, "personal-chat"],
    [{ app: "Messages" }, "personal-chat"],
    [{ app: "Telegram Desktop" }, "personal-chat"],
    [{ app: "Signal" }, "personal-chat"],
    [{ app: "Visual Studio Code" }, "code-editor"],
    [{ app: "Code.exe" }, "code-editor"],
    [{ app: "IntelliJ IDEA" }, "code-editor"],
    [{ app: "Xcode" }, "code-editor"],
    [{ app: "Zed" }, "code-editor"],
    [{ app: "Terminal" }, "terminal"],
    [{ app: "iTerm2" }, "terminal"],
    [{ app: "Warp" }, "terminal"],
    [{ app: "Windows Terminal" }, "terminal"],
    [{ app: "Konsole" }, "terminal"],
    [{ app: "Microsoft Word" }, "document"],
    [{ app: "WINWORD.EXE" }, "document"],
    [{ app: "Pages" }, "document"],
    [{ app: "Notion" }, "document"],
    [{ app: "Obsidian" }, "document"],
    [{ app: "Safari", url: "https://docs.google.com/document/d/abc/edit" }, "document"],
    [{ app: "ChatGPT" }, "ai-chat"],
    [{ app: "Claude" }, "ai-chat"],
    [{ app: "Arc", url: "https://chatgpt.com/c/123" }, "ai-chat"],
    [{ app: "Chrome", url: "https://claude.ai/new" }, "ai-chat"],
    [{ app: "Edge", url: "https://gemini.google.com/app" }, "ai-chat"],
    [{ app: "Chrome", url: "https://www.perplexity.ai/search" }, "ai-chat"],
    [{ app: "Chrome", url: "https://x.com/home" }, "social-post"],
    [{ app: "Chrome", url: "https://www.linkedin.com/feed/" }, "social-post"],
    [{ app: "Ivory" }, "social-post"],
    [{ app: "Chrome", url: "https://bsky.app/" }, "social-post"],
    [{ app: "Chrome", url: "https://github.com/o/r/pull/1" }, "issue-tracker"],
    [{ app: "Wyoming" }, "voice-assistant"],
    [{ app: "Google Chrome", url: "https://example.com/" }, null],
    [{ app: "Calculator" }, null],
    [{ app: "Finder" }, null],
  ])("%j → %p", (context, key) => {
    expect(compileFormats(builtins).match(context)?.builtinKey ?? null).toBe(key);
  });
});

describe("compileFormats", () => {
  test("the user's formats win over built-ins, whatever the priorities", () => {
    const builtin = format("slack", { isBuiltin: true, builtinKey: "team-chat", priority: 1000 });
    const mine = format("slack", { priority: -1000 });
    expect(compileFormats([builtin, mine]).match({ app: "Slack" })).toBe(mine);
  });

  test("higher priority first, then the older format", () => {
    const old = format("slack");
    const newer = format("slack");
    const urgent = format("slack", { priority: 5 });
    expect(compileFormats([newer, old]).match({ app: "Slack" })).toBe(old);
    expect(compileFormats([old, newer, urgent]).match({ app: "Slack" })).toBe(urgent);
  });

  test("a disabled format never matches, even as the only candidate", () => {
    const off = format("*", { enabled: false });
    expect(compileFormats([off]).match({ app: "Slack" })).toBeNull();
  });

  test("no context matches nothing, even a catch-all", () => {
    expect(compileFormats([format("*")]).match(null)).toBeNull();
  });
});

describe("createFormatMatcher", () => {
  test("compiles once per version, not per call", () => {
    let version = 0;
    let reads = 0;
    let formats = [format("slack")];
    const matcher = createFormatMatcher({
      all: () => {
        reads++;
        return formats;
      },
      version: () => version,
    });
    for (let i = 0; i < 100; i++) matcher.match({ app: "Slack" });
    expect(reads).toBe(1);
    formats = [format("discord")];
    expect(matcher.match({ app: "Discord" })).toBeNull();
    version++;
    expect(matcher.match({ app: "Discord" })?.appPattern).toBe("discord");
    expect(reads).toBe(2);
  });
});
