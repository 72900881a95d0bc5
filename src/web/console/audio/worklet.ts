// The recorder's AudioWorklet: takes the microphone at the context's rate, mixes to mono,
// downsamples to 16 kHz (the rate svc transcribes at) and posts chunks of Float32 samples with
// the chunk's peak level. Runs on the audio thread; the main thread only collects chunks.

const TARGET_RATE = 16_000;
const CHUNK = 1600; // 100 ms at 16 kHz

class RecorderProcessor extends AudioWorkletProcessor {
  // Input samples per output sample, and how far into the current output sample we are.
  readonly #step = sampleRate / TARGET_RATE;
  #position = 0;
  #sum = 0;
  #count = 0;
  #chunk = new Float32Array(CHUNK);
  #filled = 0;
  #peak = 0;

  process(inputs: Float32Array[][]): boolean {
    const channels = inputs[0];
    const first = channels?.[0];
    if (!channels || !first) return true;
    for (let i = 0; i < first.length; i++) {
      let sample = 0;
      for (const channel of channels) sample += channel[i] ?? 0;
      sample /= channels.length;
      // A box filter over each output sample's span: enough low-pass for speech at 16 kHz.
      this.#sum += sample;
      this.#count++;
      this.#position += 1;
      if (this.#position >= this.#step) {
        this.#position -= this.#step;
        this.#emit(this.#sum / this.#count);
        this.#sum = 0;
        this.#count = 0;
      }
    }
    return true;
  }

  #emit(sample: number) {
    this.#chunk[this.#filled++] = sample;
    const magnitude = Math.abs(sample);
    if (magnitude > this.#peak) this.#peak = magnitude;
    if (this.#filled < CHUNK) return;
    this.port.postMessage({ samples: this.#chunk, peak: this.#peak }, [this.#chunk.buffer]);
    this.#chunk = new Float32Array(CHUNK);
    this.#filled = 0;
    this.#peak = 0;
  }
}

registerProcessor("svc-recorder", RecorderProcessor);
