import { findPreset, type ModelPreset, presetUrl } from "../../store/presets.ts";

// findPreset and presetUrl are every store's; whisper's callers find them beside its list.
export { findPreset, type ModelPreset, presetUrl };

/**
 * The upstream whisper.cpp ggml files svc knows by name, pinned by exact byte size and SHA-256.
 *
 * Source of every size and hash: the Git LFS pointers (`oid sha256:…`, `size …`) of
 * huggingface.co/ggerganov/whisper.cpp, as pinned at revision 5359861c739e955e79d9a303bcbc70fb988958b1
 * by public projects that verify these downloads. Each value below was found identical in at least
 * three independent public code bases (model catalogs and download scripts in Rust, Kotlin, Swift,
 * C++, JS and Python, several stating they copied the LFS oid); none was computed here, because this
 * machine cannot reach Hugging Face. The SHA-1 column of the model card (tiny.en-q5_1 3fb92ec8…,
 * base.en-q5_1 d26d7ce5…) names the same files but is not used: SHA-256 was found for every preset.
 */

export const defaultModelId = "base.en";

export const defaultModelBaseUrl = "https://huggingface.co/ggerganov/whisper.cpp/resolve/main";

export const modelPresets: readonly ModelPreset[] = [
  {
    id: "tiny.en",
    file: "ggml-tiny.en.bin",
    sizeBytes: 77_704_715,
    sha256: "921e4cf8686fdd993dcd081a5da5b6c365bfde1162e72b08d75ac75289920b1f",
    languages: "en",
    quantization: "f16",
    description: "Fastest English model; fine for short, clear dictation on slow machines.",
  },
  {
    id: "base.en",
    file: "ggml-base.en.bin",
    sizeBytes: 147_964_211,
    sha256: "a03779c86df3323075f5e796cb2ce5029f00ec8869eee3fdfb897afe36c6d002",
    languages: "en",
    quantization: "f16",
    description: "The default: good English accuracy at well under a second per short clip.",
  },
  {
    id: "small.en",
    file: "ggml-small.en.bin",
    sizeBytes: 487_614_201,
    sha256: "c6138d6d58ecc8322097e0f987c32f1be8bb0a18532a3f88f734d1bbf9c41e5d",
    languages: "en",
    quantization: "f16",
    description: "Most accurate English preset; about three times slower than base.en.",
  },
  {
    id: "tiny.en-q5_1",
    file: "ggml-tiny.en-q5_1.bin",
    sizeBytes: 32_166_155,
    sha256: "c77c5766f1cef09b6b7d47f21b546cbddd4157886b3b5d6d4f709e91e66c7c2b",
    languages: "en",
    quantization: "q5_1",
    description: "tiny.en quantised to 5 bits: a 32 MB download for small devices.",
  },
  {
    id: "base.en-q5_1",
    file: "ggml-base.en-q5_1.bin",
    sizeBytes: 59_721_011,
    sha256: "4baf70dd0d7c4247ba2b81fafd9c01005ac77c2f9ef064e00dcf195d0e2fdd2f",
    languages: "en",
    quantization: "q5_1",
    description: "base.en quantised to 5 bits: 60 MB, nearly the accuracy of base.en.",
  },
  {
    id: "small.en-q5_1",
    file: "ggml-small.en-q5_1.bin",
    sizeBytes: 190_098_681,
    sha256: "bfdff4894dcb76bbf647d56263ea2a96645423f1669176f4844a1bf8e478ad30",
    languages: "en",
    quantization: "q5_1",
    description: "small.en quantised to 5 bits: small.en accuracy in 190 MB.",
  },
  {
    id: "tiny",
    file: "ggml-tiny.bin",
    sizeBytes: 77_691_713,
    sha256: "be07e048e1e599ad46341c8d2a135645097a538221678b7acdd1b1919c6e1b21",
    languages: "multilingual",
    quantization: "f16",
    description: "Fastest multilingual model (99 languages, automatic language detection).",
  },
  {
    id: "base",
    file: "ggml-base.bin",
    sizeBytes: 147_951_465,
    sha256: "60ed5bc3dd14eea856493d334349b405782ddcaf0028d4b5df4088345fba2efe",
    languages: "multilingual",
    quantization: "f16",
    description: "Multilingual base model; use it when you dictate in languages other than English.",
  },
];
