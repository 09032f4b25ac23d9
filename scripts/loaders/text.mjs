import { register } from "node:module";

// `--import ./scripts/loaders/text.mjs`: plain Node and tsx runs read `.txt` imports as
// strings, the way the Lambda bundles and vitest do.
register("./text-hooks.mjs", import.meta.url);
