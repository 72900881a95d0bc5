// A model an engine's store knows by name: its upstream file, pinned by size and hash. Each engine
// with downloadable models lists its own (whisper: engines/whisper/models/presets.ts).

export interface ModelPreset {
  /** The name users type: `svc models pull base.en`, the `stt_model` setting. */
  id: string;
  /** File name upstream and in the models directory. */
  file: string;
  sizeBytes: number;
  /** Lower-case hex. Every preset has one; the type allows none for models added later without one. */
  sha256?: string;
  /** "en" for English-only models, "multilingual" for the ones that speak many languages. */
  languages: "en" | "multilingual";
  /** How its weights are stored. */
  quantization: "f16" | "q5_1";
  description: string;
}

export function findPreset(id: string, presets: readonly ModelPreset[]): ModelPreset | undefined {
  return presets.find((preset) => preset.id === id);
}

/** The preset's download address under a base URL (upstream or a mirror with the same file names). */
export function presetUrl(baseUrl: string, preset: ModelPreset): string {
  return `${baseUrl.replace(/\/+$/, "")}/${preset.file}`;
}
