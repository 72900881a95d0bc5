/** The sample rate every speech engine takes, and so the rate the decoder delivers. No imports. */
export const SAMPLE_RATE = 16_000;
