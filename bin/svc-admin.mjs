#!/usr/bin/env node
// The package's bin (docs/administration.md: `npx svc-admin`): npm links a plain .mjs file, and the
// TypeScript CLI is compiled on the fly by tsx, as `npm start` does, with no build step.
import { register } from "tsx/esm/api";
// `.txt` imports as strings, as in the Lambda bundles.
import "../scripts/loaders/text.mjs";

register();
await import("./svc-admin.ts");
