import { describe, expect, test } from "bun:test";
import { fromWire, ownBuffer, toWire } from "../../../../src/dictation/engines/whisper/gpu-protocol.ts";
import { AppError } from "../../../../src/errors.ts";

describe("whisper's GPU process channel", () => {
  test("a 30 s window of a long recording crosses alone, not with the whole recording", () => {
    const recording = new Float32Array(16_000 * 600);
    recording[16_000 * 30] = 0.5;
    const window = recording.subarray(16_000 * 30, 16_000 * 60);
    const sent = ownBuffer(window);
    expect(sent.buffer.byteLength).toBe(16_000 * 30 * 4);
    expect(sent[0]).toBe(0.5);
    expect(structuredClone(sent).buffer.byteLength).toBe(16_000 * 30 * 4);
    // An array that is its whole buffer is not copied.
    const whole = new Float32Array(8);
    expect(ownBuffer(whole)).toBe(whole);
  });

  test("an AppError keeps its code, status and details across; anything else is engine_failed", () => {
    const error = fromWire(
      structuredClone(
        toWire(new AppError("invalid_model", "not a whisper model", { details: { engine: "whisper" } })),
      ),
    );
    expect(error).toMatchObject({ code: "invalid_model", status: 422, details: { engine: "whisper" } });
    expect(error.message).toBe("not a whisper model");
    expect(fromWire(structuredClone(toWire(new Error("driver lost"))))).toMatchObject({
      code: "engine_failed",
      message: "driver lost",
    });
  });
});
