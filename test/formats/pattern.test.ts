import { describe, expect, test } from "bun:test";
import { type AppContext, parseAppContext } from "../../src/formats/app-context.ts";
import { compilePattern, containsWord, matchesPattern, toMatchTarget } from "../../src/formats/pattern.ts";

const matches = (pattern: string, context: AppContext) => {
  const { compiled, problems } = compilePattern(pattern);
  expect(problems).toEqual([]);
  return matchesPattern(compiled, toMatchTarget(context));
};

describe("containsWord", () => {
  test.each([
    ["visual studio code", "code", true],
    ["code.exe", "code", true],
    ["code - insiders", "code", true],
    ["xcode", "code", false],
    ["codeberg", "code", false],
    ["microsoft teams", "teams", true],
    ["ms-teams", "teams", true],
    ["notepad++", "notepad++", true],
    ["notepad++ portable", "notepad++", true],
    ["mail", "mail", true],
    ["mailspring", "mail", false],
    ["google chrome", "visual studio code", false],
    ["微信开发者工具", "微信", true],
    ["élan vital", "élan", true],
    ["réélan", "élan", false],
  ])("%p contains the word %p: %p", (haystack, needle, expected) => {
    expect(containsWord(haystack, needle)).toBe(expected);
  });
});

describe("pattern matching", () => {
  test("app alternatives match whole words case-insensitively", () => {
    expect(matches("slack|discord", { app: "Slack" })).toBe(true);
    expect(matches(" Slack | Discord ", { app: "DISCORD PTB" })).toBe(true);
    expect(matches("app:slack", { app: "slack" })).toBe(true);
    expect(matches("slack", { app: "Slacker" })).toBe(false);
    expect(matches("slack", { title: "slack" })).toBe(false);
  });

  test("title: alternatives match the window title only", () => {
    expect(matches("title:gmail", { app: "Firefox", title: "Inbox (3) - me@example.com - Gmail" })).toBe(
      true,
    );
    expect(matches("title:gmail", { app: "gmail" })).toBe(false);
  });

  test.each([
    ["url:github.com", "https://github.com/owner/repo", true],
    ["url:github.com", "https://gist.github.com/x", true],
    ["url:github.com", "https://www.github.com", true],
    ["url:github.com", "https://notgithub.com", false],
    ["url:github.com", "https://github.com.evil.example/", false],
    ["url:*.google.com", "https://docs.google.com/document/d/1", true],
    ["url:docs.google.com/document", "https://docs.google.com/document/d/1", true],
    ["url:docs.google.com/document", "https://docs.google.com/Document", true],
    ["url:docs.google.com/document", "https://docs.google.com/documents", false],
    ["url:docs.google.com/document", "https://docs.google.com/spreadsheets/d/1", false],
    ["url:https://mail.google.com/", "mail.google.com/mail/u/0", true],
    ["url:localhost", "http://localhost:3000/app", true],
    ["url:xn--bcher-kva.example", "https://bücher.example/", true],
    ["url:github.com", "not a url at all", false],
  ])("%p against %p: %p", (pattern, url, expected) => {
    expect(matches(pattern, { app: "Browser", url })).toBe(expected);
  });

  test("* matches any non-empty context", () => {
    expect(matches("*", { app: "Anything" })).toBe(true);
    expect(matches("*", { url: "https://x.example" })).toBe(true);
  });

  test.each([
    ["", "no alternatives"],
    [" | | ", "no alternatives"],
    ["url:", "nothing after the prefix"],
    ["title:  ", "nothing after the prefix"],
    ["url:not a host", "not a host name"],
    [Array.from({ length: 101 }, (_, i) => `app${i}`).join("|"), "at most 100"],
  ])("reports a problem for %p", (pattern, problem) => {
    expect(compilePattern(pattern).problems.join("; ")).toContain(problem);
  });
});

describe("parseAppContext", () => {
  test.each([
    [undefined, null],
    ["", null],
    ["   ", null],
    ["Slack", { app: "Slack" }],
    [
      '{"app":"Chrome","url":"https://x.com","title":"Home"}',
      { app: "Chrome", url: "https://x.com", title: "Home" },
    ],
    ['{"app":"  ","title":"T","bundleId":"com.x"}', { title: "T" }],
    ["{}", null],
    [encodeURIComponent('{"app":"微信"}'), { app: "微信" }],
    [encodeURIComponent("Café Notes"), { app: "Café Notes" }],
    ["100% Focus", { app: "100% Focus" }],
    [{ app: "Mail" }, { app: "Mail" }],
    // Freestyle's spellings, as its clients send them; svc's own win when both are there.
    [
      '{"appName":"Slack","windowTitle":"general","bundleId":"com.tinyspeck"}',
      { app: "Slack", title: "general" },
    ],
    [
      { app: "Mail", appName: "Other", title: "Inbox", windowTitle: "Other" },
      { app: "Mail", title: "Inbox" },
    ],
  ])("reads %p", (raw, expected) => {
    expect(parseAppContext(raw)).toEqual(expected);
  });

  test.each([
    ['{"app":', "does not parse"],
    ['{"app":5}', "not valid"],
    [`{"app":"${"a".repeat(201)}"}`, "not valid"],
    ["[1,2]", "not an array"],
  ])("rejects %p with 400 invalid_app_context", (raw, message) => {
    const parse = () => parseAppContext(raw === "[1,2]" ? [1, 2] : raw);
    expect(parse).toThrow(message);
    try {
      parse();
    } catch (error) {
      expect(error).toMatchObject({ status: 400, code: "invalid_app_context" });
    }
  });
});
