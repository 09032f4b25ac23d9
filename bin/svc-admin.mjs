#!/usr/bin/env node
// The package's bin (DESIGN 7: `npx svc-admin`): npm links a plain .mjs file, and the
// TypeScript CLI is compiled on the fly by tsx, as `npm start` does, with no build step.
import { register } from "tsx/esm/api";

register();
await import("./svc-admin.ts");
