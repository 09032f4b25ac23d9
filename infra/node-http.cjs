// What the Lambda bundles get for `node:http` (an esbuild alias, infra/bundling.ts): the same
// module, reached without an ESM import. On Node 22 an ESM import of a built-in reads every
// export, and `http.WebSocket` and its siblings then load undici (docs/decisions/node-http-import.md).
module.exports = process.getBuiltinModule("node:http");
