// Types TypeScript's DOM library lacks: side-effect stylesheet imports (Bun bundles them into
// app.css), files Bun embeds by path, and the AudioWorklet global scope.
declare module "*.css" {
  const path: string;
  export default path;
}
declare module "*.asset" {
  const path: string;
  export default path;
}
declare module "*.svg" {
  const path: string;
  export default path;
}

declare abstract class AudioWorkletProcessor {
  readonly port: MessagePort;
  abstract process(
    inputs: Float32Array[][],
    outputs: Float32Array[][],
    parameters: Record<string, Float32Array>,
  ): boolean;
}
declare function registerProcessor(name: string, processor: new () => AudioWorkletProcessor): void;
declare const sampleRate: number;
