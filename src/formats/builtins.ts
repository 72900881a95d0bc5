import { defaultFormatStyle, type FormatStyle } from "./style.ts";
import type { BuiltinFormat } from "./types.ts";

const style = (overrides: Partial<FormatStyle>): FormatStyle => ({ ...defaultFormatStyle, ...overrides });

const builtin = (
  key: string,
  label: string,
  pattern: string[],
  instructions: string,
  overrides: Partial<FormatStyle> = {},
): BuiltinFormat => ({
  key,
  label,
  appPattern: pattern.join("|"),
  instructions,
  enabled: true,
  priority: 0,
  style: style(overrides),
});

/**
 * The built-in formats, in match order among themselves. Patterns use the syntax in
 * src/formats/pattern.ts: app names match as whole words ("code" matches "Visual Studio Code",
 * not "Xcode"), `url:` entries match a host and its subdomains.
 */
export const builtinFormats: readonly BuiltinFormat[] = [
  builtin(
    "email",
    "Email",
    [
      "mail|outlook|thunderbird|spark|airmail|mimestream|superhuman|mailspring|proton mail",
      "canary mail|hey|url:mail.google.com|url:outlook.live.com|url:outlook.office.com",
      "url:outlook.office365.com|url:mail.proton.me|url:mail.yahoo.com|url:app.hey.com",
      "url:app.fastmail.com|url:icloud.com/mail",
    ],
    "An email body. Write complete, well-punctuated sentences and split separate points into paragraphs. " +
      "Put a dictated greeting and sign-off on their own lines. Keep the speaker's tone and wording; " +
      "do not add a subject line, greeting or signature that was not dictated.",
    { endPunctuation: "add" },
  ),
  builtin(
    "team-chat",
    "Team chat",
    [
      "slack|microsoft teams|teams|discord|mattermost|rocket.chat|google chat|zulip|element|webex",
      "url:app.slack.com|url:teams.microsoft.com|url:teams.live.com|url:discord.com",
      "url:chat.google.com|url:app.zulip.com",
    ],
    "A message in a team channel or thread. Keep it short and direct, with no greeting or sign-off. " +
      "Keep @mentions, #channels, code identifiers and links exactly as dictated. " +
      "Use a short bulleted list only when several separate items were dictated.",
    { endPunctuation: "strip" },
  ),
  builtin(
    "personal-chat",
    "Personal chat",
    [
      "messages|imessage|whatsapp|telegram|signal|messenger|wechat|viber|threema",
      "url:web.whatsapp.com|url:web.telegram.org|url:messenger.com|url:messages.google.com",
    ],
    "A casual message to a friend or family member. Keep the speaker's words, tone, slang and emoji " +
      "names; do not make it formal, add a greeting or sign off. Short sentences, no trailing period.",
    { endPunctuation: "strip" },
  ),
  builtin(
    "code-editor",
    "Code editor",
    [
      "code|visual studio code|vscode|visual studio|cursor|windsurf|zed|xcode|intellij idea|pycharm",
      "webstorm|goland|rider|clion|phpstorm|rubymine|android studio|fleet|sublime text|vim|neovim",
      "nvim|emacs|nova|bbedit|url:vscode.dev|url:github.dev",
    ],
    "Text dictated into a code editor: usually a comment, docstring, commit message or a prompt for a " +
      "coding assistant. Keep identifiers, file names, symbols and technical terms exactly as spoken, in " +
      "their conventional casing (camelCase, snake_case). Do not add Markdown, quotes or explanations.",
    { capitalize: false, spokenPunctuation: false },
  ),
  builtin(
    "terminal",
    "Terminal",
    [
      "terminal|iterm|iterm2|warp|windows terminal|windowsterminal|powershell|pwsh|command prompt|cmd",
      "konsole|gnome terminal|alacritty|kitty|wezterm|ghostty|hyper|tabby|tilix|xterm|terminator",
      "termius|putty",
    ],
    "A shell command or its arguments typed into a terminal. Output only the command: no capitalisation, " +
      "no trailing period, no quotes, backticks or explanation around it. Keep flags, paths and program " +
      "names exactly as spoken.",
    { capitalize: false, spokenPunctuation: false, endPunctuation: "strip" },
  ),
  builtin(
    "document",
    "Document",
    [
      "word|winword|microsoft word|google docs|pages|notion|obsidian|bear|craft|evernote|onenote",
      "libreoffice|writer|typora|ulysses|scrivener|notes|logseq|url:docs.google.com|url:notion.so",
      "url:notion.site|url:coda.io|url:quip.com|url:office.com|url:sharepoint.com",
      "url:onedrive.live.com|url:dropbox.com/paper",
    ],
    "Prose for a document or note. Write complete sentences with correct punctuation and paragraphs; " +
      "format dictated lists as lists and dictated headings on their own line. Keep the speaker's " +
      "wording and meaning: fix grammar and flow only.",
    { endPunctuation: "add" },
  ),
  builtin(
    "ai-chat",
    "AI chat",
    [
      "chatgpt|claude|gemini|perplexity|copilot|le chat|deepseek|grok|poe|url:chatgpt.com",
      "url:chat.openai.com|url:claude.ai|url:gemini.google.com|url:perplexity.ai",
      "url:copilot.microsoft.com|url:chat.mistral.ai|url:poe.com|url:chat.deepseek.com|url:grok.com",
      "url:aistudio.google.com",
    ],
    "A prompt for an AI assistant. Keep every instruction, constraint, question and detail in the order " +
      "given; make it clear and well structured, but never answer it, shorten it, or add requests of " +
      "your own. Keep code identifiers, file names and quoted text exactly.",
  ),
  builtin(
    "social-post",
    "Social post",
    [
      "x|twitter|tweetdeck|linkedin|mastodon|ivory|ice cubes|bluesky|threads|facebook|instagram",
      "reddit|url:x.com|url:twitter.com|url:linkedin.com|url:bsky.app|url:threads.net",
      "url:mastodon.social|url:facebook.com|url:instagram.com|url:reddit.com",
    ],
    "A public social media post in the speaker's own voice: natural, concise and engaging. Keep " +
      "hashtags, @handles and links as dictated; do not add hashtags, emoji or calls to action.",
  ),
  builtin(
    "voice-assistant",
    "Voice assistant",
    ["wyoming"],
    "A spoken command for a voice assistant such as Home Assistant's Assist, which matches it against " +
      "its own sentences. Keep the words as spoken, in the order said: do not answer it, " +
      "rephrase it, complete it or add punctuation. Keep names of devices, rooms, areas and numbers exactly.",
    { capitalize: false, spokenPunctuation: false, endPunctuation: "strip" },
  ),
  builtin(
    "issue-tracker",
    "Issues and code review",
    [
      "github desktop|jira|linear|youtrack|url:github.com|url:gitlab.com|url:bitbucket.org",
      "url:atlassian.net|url:linear.app|url:codeberg.org",
    ],
    "An issue, pull request description or review comment. Clear technical sentences; Markdown is " +
      "welcome for lists and `code` spans. Keep file names, commands, versions and identifiers exactly " +
      "as spoken.",
  ),
];
