registerProcessor(
  "svc-recorder",
  class extends AudioWorkletProcessor {
    process() {
      return true;
    }
  },
);
