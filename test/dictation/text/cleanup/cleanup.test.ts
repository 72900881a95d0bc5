import { describe, expect, test } from "bun:test";
import {
  applyEndPunctuation,
  type CleanupOptions,
  cleanTranscript,
} from "../../../../src/dictation/text/cleanup/cleanup.ts";
import { defaultFormatStyle } from "../../../../src/formats/style.ts";

const defaults: CleanupOptions = { ...defaultFormatStyle, extraFillers: [] };

type Case = readonly [input: string, expected: string, options?: Partial<CleanupOptions>];

function run(cases: readonly Case[]): void {
  for (const [input, expected, options] of cases) {
    test(`${JSON.stringify(input)} → ${JSON.stringify(expected)}`, () => {
      expect(cleanTranscript(input, { ...defaults, ...options })).toBe(expected);
    });
  }
}

describe("cleanTranscript: fillers", () => {
  run([
    ["um I think so", "I think so"],
    ["Uh, we should go.", "We should go."],
    ["So, um, I think we should go", "So, I think we should go"],
    ["I was, um, thinking about it", "I was thinking about it"],
    ["the plan is, uh, fine", "The plan is fine"],
    ["okay, um.", "Okay."],
    ["I think, uh.", "I think."],
    ["Umm... ahh, hmm, let me see", "Let me see"],
    ["mm-hmm that works", "That works"],
    ["erm, uhm, right", "Right"],
    ["um", ""],
    ['"um, hello"', '"Hello"'],
    ["I said (um) hello", "I said hello"],
    ["Um... uh. Hmm?", ""],
    ["You know, it is fine, you know.", "It is fine.", { extraFillers: ["you know"] }],
    ["basically we ship today", "We ship today", { extraFillers: ["Basically"] }],
    ["um we ship", "Um we ship", { removeFillers: false }],
    ["er I think", "I think", { language: "en-GB" }],
  ]);
});

describe("cleanTranscript: meaningful words stay", () => {
  run([
    ["I like it", "I like it"],
    ["uh-huh, that is right", "Uh-huh, that is right"],
    ["er I think", "Er I think"],
    ["Er ist hier.", "Er ist hier.", { language: "de" }],
    ["Äh, er ist hier.", "Er ist hier.", { language: "de" }],
    ["to err is human", "To err is human"],
    ["Ah, I see what you mean.", "I see what you mean."],
    ["so it was like really good", "So it was like really good"],
    ["the humming was loud", "The humming was loud"],
  ]);
});

describe("cleanTranscript: stutters and repetitions", () => {
  run([
    ["I I think so", "I think so"],
    ["I I I think so", "I think so"],
    ["the the report is late", "The report is late"],
    ["th-th-this is it", "This is it"],
    ["Th-this is it", "This is it"],
    ["b-but why", "But why"],
    ["I-I don't know", "I don't know"],
    ["I- I think so", "I think so"],
    ["we went wh- where we wanted", "We went where we wanted"],
    ["I was I was going home", "I was going home"],
    ["go to the to the store", "Go to the store"],
  ]);
});

describe("cleanTranscript: legitimate doubles stay", () => {
  run([
    ["she had had enough", "She had had enough"],
    ["I know that that is wrong", "I know that that is wrong"],
    ["what it is is a mess", "What it is is a mess"],
    ["give her her keys", "Give her her keys"],
    ["very very good", "Very very good"],
    ["test test", "Test test"],
    ["bye-bye for now", "Bye-bye for now"],
    ["the food was so-so", "The food was so-so"],
    ["please re-read the e-mail", "Please re-read the e-mail"],
    ["our co-counsel agreed", "Our co-counsel agreed"],
    ["pre- and post-war", "Pre- and post-war"],
    ["come in in five minutes", "Come in in five minutes"],
    ["I, I think", "I, I think"],
  ]);
});

describe("cleanTranscript: spoken punctuation", () => {
  run([
    ["meet me at the office period see you there period", "Meet me at the office. See you there."],
    ["is it ready question mark", "Is it ready?"],
    ["that is great exclamation mark", "That is great!"],
    ["that is great exclamation point", "That is great!"],
    ["first comma second comma third full stop", "First, second, third."],
    ["the list colon apples semicolon pears", "The list: apples; pears"],
    ["Dear Anna comma new line thanks for the update", "Dear Anna,\nThanks for the update"],
    ["first point new paragraph second point", "First point\n\nSecond point"],
    ["he said open quote hello close quote", 'He said "hello"'],
    ["she wrote quote unquote experts", "She wrote quote unquote experts"],
    ["note open paren optional close paren here", "Note (optional) here"],
    ["wait dot dot dot what", "Wait... what"],
    ["I'm done. Period.", "I'm done."],
    ["Hello, comma, world", "Hello, world"],
    ["we are ready Period", "We are ready."],
    ["comma hello open quote", "Hello"],
  ]);
});

describe("cleanTranscript: spoken punctuation variants behave alike", () => {
  run([
    ["it ends here full stop", "It ends here."],
    ["it ends here fullstop", "It ends here."],
    ["step one period step two period", "Step one. Step two."],
    ["chapter one comma chapter two", "Chapter one, chapter two"],
    ["item one new paragraph item two", "Item one\n\nItem two"],
    ["note open parentheses optional close parentheses here", "Note (optional) here"],
    ["note open paren optional end paren here", "Note (optional) here"],
    ["note open parenthesis optional end parenthesis here", "Note (optional) here"],
    // Engines write some commands hyphenated.
    ["we are ready full-stop", "We are ready."],
    ["apples semi-colon pears", "Apples; pears"],
    ["Dear Anna comma new-line thanks", "Dear Anna,\nThanks"],
    ["the new-line character", "The new-line character"],
    ["he said quote hello end quote and left", 'He said "hello" and left'],
    ["He said, quote, hello, unquote.", 'He said, "hello".'],
    ["I quote him often", "I quote him often"],
    ["get a quote today", "Get a quote today"],
  ]);
});

describe("cleanTranscript: spacing and marks around closing quotes and brackets", () => {
  run([
    ["He said open quote hello close quote.", 'He said "hello".'],
    ["He said, open quote, hello, close quote.", 'He said, "hello".'],
    ["He said, open quote. Hello. Close quote. Then he left.", 'He said, "Hello." Then he left.'],
    ["she asked open quote why question mark close quote", 'She asked "why?"'],
    ["Call me, open paren, maybe, close paren, today.", "Call me, (maybe) today."],
    ["he said open quote hello close quote comma then left", 'He said "hello", then left'],
    // A spoken mark before the closing command stays inside, like a spoken question mark.
    ["he said open quote hello comma close quote then left", 'He said "hello," then left'],
    ["He said, open quote, hello, comma, close quote, then left.", 'He said, "hello," then left.'],
    ["He said, open quote, hello, close quote, then left.", 'He said, "hello" then left.'],
    ["see open paren note colon close paren", "See (note:)"],
  ]);
});

describe("cleanTranscript: spoken punctuation words used as words", () => {
  run([
    ["the period of time was long", "The period of time was long"],
    ["a trial period applies", "A trial period applies"],
    ["the grace period ends today", "The grace period ends today"],
    ["she wore a period costume", "She wore a period costume"],
    ["I love the Oxford comma", "I love the Oxford comma"],
    ["put a comma there", "Put a comma there"],
    ["he has colon cancer", "He has colon cancer"],
    ["we launched a new line of shoes", "We launched a new line of shoes"],
    ["the car came to a full stop", "The car came to a full stop"],
    ["there is a big question mark over it", "There is a big question mark over it"],
    ["comma period new line", "Comma period new line", { spokenPunctuation: false }],
    ["dos punto period", "Dos punto period", { language: "es" }],
  ]);
});

describe("cleanTranscript: whitespace, artefacts and spacing", () => {
  run([
    [" Hello there.", "Hello there."],
    ["hello   \t there", "Hello there"],
    ["Hello , world .", "Hello, world."],
    ["Hello ,world", "Hello, world"],
    ["wait ( really ) yes", "Wait (really) yes"],
    ["[BLANK_AUDIO]", ""],
    ["[BLANK_AUDIO] Hello. [ Silence ]", "Hello."],
    ["(upbeat music) Thanks for coming (laughs)", "Thanks for coming"],
    ["*coughs* excuse me", "Excuse me"],
    ["♪ ♪", ""],
    ["see section [1] below", "See section [1] below"],
    ["I bought milk (and eggs)", "I bought milk (and eggs)"],
    ["Hello,, world", "Hello, world"],
    ["Really,. yes", "Really. Yes"],
    ["line one\r\nline two", "Line one\nLine two"],
    ["para one\n\n\n\npara two", "Para one\n\nPara two"],
  ]);
});

describe("cleanTranscript: capitalisation", () => {
  run([
    ["hello. how are you? fine! thanks", "Hello. How are you? Fine! Thanks"],
    ["i think i'm right and i've seen it", "I think I'm right and I've seen it"],
    ["iPhone sales are up", "iPhone sales are up"],
    ["example.com is down", "example.com is down"],
    ["e.g. this one", "e.g. this one"],
    ["ask dr. smith today", "Ask dr. smith today"],
    ["we met in the U.S. last year", "We met in the U.S. last year"],
    ["wait... it works", "Wait... it works"],
    ["élan is a word. état too", "Élan is a word. État too"],
    ["istanbul is big", "İstanbul is big", { language: "tr" }],
    ["NASA said so", "NASA said so"],
    ["hello. i think so", "hello. i think so", { capitalize: false }],
    ["привет. как дела", "Привет. Как дела", { language: "ru" }],
    ["我想去东京。好的", "我想去东京。好的"],
  ]);
});

describe("cleanTranscript: end punctuation", () => {
  run([
    ["see you soon", "See you soon.", { endPunctuation: "add" }],
    ["see you soon?", "See you soon?", { endPunctuation: "add" }],
    ["see you soon,", "See you soon.", { endPunctuation: "add" }],
    ['he said "hi"', 'He said "hi".', { endPunctuation: "add" }],
    ["sounds good 👍", "Sounds good 👍", { endPunctuation: "add" }],
    ["我们明天见", "我们明天见。", { endPunctuation: "add" }],
    ["see you soon.", "See you soon", { endPunctuation: "strip" }],
    ["really?", "Really?", { endPunctuation: "strip" }],
    ["wait...", "Wait...", { endPunctuation: "strip" }],
    ["see you soon.", "See you soon.", { endPunctuation: "keep" }],
    ["see you soon", "See you soon", { endPunctuation: "keep" }],
  ]);
});

describe("cleanTranscript: styles for code and terminals", () => {
  const terminal = { capitalize: false, spokenPunctuation: false, removeFillers: true } as const;
  run([
    ["um git commit dash m fix", "git commit dash m fix", terminal],
    ["ls period", "ls period", terminal],
    ["I I think", "I think", terminal],
  ]);
});

describe("applyEndPunctuation", () => {
  test("leaves empty text empty in every mode", () => {
    for (const mode of ["keep", "add", "strip"] as const) expect(applyEndPunctuation("", mode)).toBe("");
  });

  test("strips the period inside a closing quote", () => {
    expect(applyEndPunctuation('He said "hi."', "strip")).toBe('He said "hi"');
  });
});
