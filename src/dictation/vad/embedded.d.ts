// Files imported `with { type: "file" }`: Bun gives their path (inside the compiled binary, a /$bunfs one).
declare module "*.onnx" {
  const path: string;
  export default path;
}

declare module "*.wasm" {
  const path: string;
  export default path;
}
