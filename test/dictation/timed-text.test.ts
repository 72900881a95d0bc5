import { describe, expect, test } from "bun:test";
import type { TranscriptSegment } from "../../src/dictation/engines/types.ts";
import { finishedSegments } from "../../src/dictation/timed-text.ts";

/** A segment whose words are timed 100 ms each from `startMs`. */
function segment(text: string, startMs: number): TranscriptSegment {
  const words = text.split(" ").map((word, n) => ({
    word,
    startMs: startMs + n * 100,
    endMs: startMs + (n + 1) * 100,
  }));
  return { text, startMs, endMs: startMs + words.length * 100, words };
}

describe("finishedSegments", () => {
  test("gives each segment its part of the finished text, with capitals and punctuation", () => {
    const segments = [segment("so um go forward", 0), segment("ten meters then stop", 1000)];
    const out = finishedSegments(segments, "So go forward ten meters. Then stop.");
    expect(out?.map((part) => part.text)).toEqual(["So go forward", "ten meters. Then stop."]);
    // The filler cleanup dropped is gone from the words too; times are the engine's.
    expect(out?.[0]?.words).toEqual([
      { word: "So", startMs: 0, endMs: 100 },
      { word: "go", startMs: 200, endMs: 300 },
      { word: "forward", startMs: 300, endMs: 400 },
    ]);
    expect(out?.[1]?.words?.map((word) => word.word)).toEqual(["ten", "meters", "Then", "stop"]);
  });

  test("words the dictionary replaced share the time of those they replaced", () => {
    const out = finishedSegments([segment("go forward ten meters now", 0)], "Go forward 10 m now.");
    expect(out?.[0]?.text).toBe("Go forward 10 m now.");
    expect(out?.[0]?.words).toEqual([
      { word: "Go", startMs: 0, endMs: 100 },
      { word: "forward", startMs: 100, endMs: 200 },
      { word: "10", startMs: 200, endMs: 300 },
      { word: "m", startMs: 300, endMs: 400 },
      { word: "now", startMs: 400, endMs: 500 },
    ]);
  });

  test("keeps segments without timed words as segments", () => {
    const out = finishedSegments(
      [
        { text: "hello there", startMs: 0, endMs: 900 },
        { text: "general kenobi", startMs: 900, endMs: 2000 },
      ],
      "Hello there, General Kenobi!",
    );
    expect(out).toEqual([
      { text: "Hello there,", startMs: 0, endMs: 900 },
      { text: "General Kenobi!", startMs: 900, endMs: 2000 },
    ]);
  });

  test("answers nothing when cleanup rephrased the text past lining up", () => {
    const segments = [segment("uh so basically i was thinking we could go", 0)];
    expect(finishedSegments(segments, "I suggest that we leave now.")).toBeNull();
  });
});
