// A `.txt` import is the file's text: esbuild's `text` loader in the bundles, the plugin of
// vitest.config.ts in tests, scripts/loaders/text.mjs under Node and tsx.
declare module "*.txt" {
  const text: string;
  export default text;
}
