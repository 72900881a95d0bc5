// The audio surface the rest of svc uses: whole recordings (`decodeAudio`), audio arriving in
// pieces (`openAudioStream`), levels and the limits of what svc accepts. The other files here are
// its parts; a lint rule (biome.json) keeps imports from reaching past this one.
export { ALL_DECODERS, warmUpDecoders } from "./compressed.ts";
export { type DecodedAudio, type DecodeLimits, decodeAudio } from "./decode.ts";
export { ACCEPTED_AUDIO, AUDIO_ERROR_CODES, type AudioErrorCode, unsupportedAudio } from "./errors.ts";
export { type AudioLevel, DEFAULT_SILENCE_THRESHOLD_DB, isNearSilent, measureLevel } from "./level.ts";
export { parseMediaType } from "./media-type.ts";
export { closeDecodeWorker, DECODE_WORKER_ENTRY } from "./off-loop.ts";
export { MAX_SAMPLE_RATE, MIN_SAMPLE_RATE, type PcmLayout } from "./pcm.ts";
export { SAMPLE_RATE } from "./rate.ts";
export { type AudioStream, openAudioStream, type StreamFormat, sameStreamFormat } from "./stream.ts";
export { encodeWav } from "./wav-encode.ts";
