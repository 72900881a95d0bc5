// The audio decoding surface the rest of svc uses; the other files here are its parts.
export { ALL_DECODERS, warmUpDecoders } from "./compressed.ts";
export { type DecodedAudio, type DecodeLimits, decodeAudio } from "./decode.ts";
export { AUDIO_ERROR_CODES, type AudioErrorCode } from "./errors.ts";
export { type AudioLevel, DEFAULT_SILENCE_THRESHOLD_DB, isNearSilent, measureLevel } from "./level.ts";
export { SAMPLE_RATE } from "./rate.ts";
