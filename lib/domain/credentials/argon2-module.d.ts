// hash-wasm's argon2 alone (30 KiB) instead of its index with every algorithm (216 KiB):
// the UMD build is CommonJS under Node and esbuild, so its exports arrive as `default`.
declare module "hash-wasm/dist/argon2.umd.min.js" {
  const argon2: { argon2Verify: typeof import("hash-wasm").argon2Verify };
  export default argon2;
}
