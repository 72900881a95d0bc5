import { describe, expect, test } from "bun:test";
import type { CompleteInput } from "../../../src/dictation/complete.ts";
import { createLiveDriver, type LiveConnection } from "../../../src/dictation/live/driver.ts";
import {
  defaultOperatorLimits,
  type LiveDoor,
  liveDoors,
  type OperatorLimits,
} from "../../../src/dictation/live/limits.ts";
import type { LiveTranscriber } from "../../../src/dictation/live/session.ts";
import type { VadStream } from "../../../src/dictation/vad/vad.ts";
import { createDictationApi } from "../../../src/plugins/hook-api.ts";
import type { SettingsService } from "../../../src/settings/service.ts";
import { appErrorOf } from "../../helpers/errors.ts";

// The driver's rules with small fakes around it: a detector that never closes a piece (the whole
// dictation is recognised at stop) and a transcriber that answers at once. The doors' own tests
// (routes/dictate, wyoming/listener, plugins/hook-sources) drive it with real speech.

const quietVad = (): VadStream => ({
  push: async () => [],
  end: async () => [],
  open: () => null,
  horizonMs: () => 0,
  cancel() {},
});

function driverFor(
  door: LiveDoor,
  settings: Record<string, number> = {},
  operator: Partial<OperatorLimits> = {},
) {
  const completed: CompleteInput[] = [];
  const transcriber: LiveTranscriber = {
    recognisePiece: async () => ({
      text: "",
      language: "en",
      segments: [],
      engine: { id: "sphinx", model: "m" },
    }),
    activeEngine: async () => ({ id: "sphinx", model: "m" }),
    isIdle: () => true,
    plainPieces: () => true,
    newDictation: () => createDictationApi(),
    async complete(input) {
      completed.push(input);
      return {
        text: input.raw,
        raw: input.raw,
        language: input.language,
        audioDurationMs: Math.round(input.audioDurationMs),
        durationMs: 0,
        engine: input.engine.id,
        model: input.engine.model,
        historyId: null,
        format: null,
        timings: input.timings,
        disposition: "deliver",
        reason: null,
        consumedBy: null,
        mode: "paste",
      };
    },
  };
  const values: Record<string, number> = {
    dictate_max_session_seconds: 300,
    dictate_max_speed: 4,
    dictate_start_timeout_seconds: 5,
    dictate_idle_timeout_seconds: 30,
    ...settings,
  };
  const get = ((key: string) => values[key] ?? 0) as SettingsService["get"];
  const driver = createLiveDriver({
    transcriber,
    vad: { stream: quietVad },
    door,
    settings: { get },
    operator: { ...defaultOperatorLimits, ...operator },
  });
  const failures: unknown[] = [];
  const connect = (): LiveConnection => driver.connect({ fail: (error) => failures.push(error) });
  return { driver, connect, failures, completed };
}

const pcm16 = { encoding: "s16le", sampleRate: 16_000, channels: 1 } as const;
const seconds = (s: number, rate = 16_000) => new Uint8Array(s * rate * 2);

describe("createLiveDriver", () => {
  test("svc dictate's door has no pace: a minute at once goes through; its length still applies", async () => {
    const { connect } = driverFor(liveDoors.cli, { dictate_max_session_seconds: 90 });
    const live = connect();
    live.start({ audio: pcm16 });
    live.audio(seconds(60));
    expect((await live.stop()).audioDurationMs).toBe(60_000);
    const long = connect();
    long.start({ audio: pcm16 });
    long.audio(seconds(60));
    const error = await appErrorOf(Promise.resolve().then(() => long.audio(seconds(31))));
    expect(error.code).toBe("audio_too_long");
    expect(error.message).toContain("dictate_max_session_seconds");
  });

  test("the WebSocket's door refuses audio faster than its pace, naming the setting", async () => {
    const { connect } = driverFor(liveDoors.dictate, { dictate_max_speed: 2 });
    const live = connect();
    live.start({ audio: pcm16 });
    const error = await appErrorOf(Promise.resolve().then(() => live.audio(seconds(6))));
    expect(error.code).toBe("too_fast");
    expect(error.message).toContain("dictate_max_speed");
    live.close();
  });

  test("past maxSessions a start is refused busy; a dictation that stopped frees its place", async () => {
    const { connect, driver } = driverFor(liveDoors.dictate, {}, { dictateMaxSessions: 1 });
    const first = connect();
    first.start({ audio: pcm16 });
    const second = connect();
    expect((await appErrorOf(Promise.resolve().then(() => second.start({ audio: pcm16 })))).code).toBe(
      "busy",
    );
    expect(driver.sessions).toBe(1);
    await first.stop();
    expect(driver.sessions).toBe(0);
    second.start({ audio: pcm16 });
    second.close();
    first.close();
  });

  test("the start deadline runs from connecting, and only a start ends it; then the idle one, renewed", async () => {
    const { connect, failures } = driverFor(liveDoors.dictate, {
      dictate_start_timeout_seconds: 0.15,
      dictate_idle_timeout_seconds: 0.15,
    });
    const waiting = connect();
    for (let i = 0; i < 4; i++) {
      await Bun.sleep(50);
      waiting.touch();
    }
    expect(failures.map((error) => (error as { code: string }).code)).toEqual(["request_timeout"]);
    expect(String(failures[0])).toContain("dictate_start_timeout_seconds");
    const talking = connect();
    talking.start({ audio: pcm16 });
    for (let i = 0; i < 5; i++) {
      await Bun.sleep(50);
      talking.touch();
    }
    expect(failures).toHaveLength(1);
    await Bun.sleep(250);
    expect(failures).toHaveLength(2);
    expect(String(failures[1])).toContain("dictate_idle_timeout_seconds");
    waiting.close();
    talking.close();
  });

  test("a format that changes mid-stream: the old stream's audio, then the new one's, all heard", async () => {
    const { connect, completed } = driverFor(liveDoors.wyoming, { wyoming_max_utterance_seconds: 60 });
    const live = connect();
    live.start({ audio: { ...pcm16, sampleRate: 8000 } });
    live.audio(seconds(1, 8000), { ...pcm16, sampleRate: 8000 });
    live.audio(seconds(1), pcm16);
    await live.stop();
    expect(completed[0]?.audioDurationMs).toBeCloseTo(2000, -1);
    live.close();
  });
});
