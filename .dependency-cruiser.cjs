/** Dependency rules: the domain owns its ports; adapters and wiring depend on it, never the reverse. */
module.exports = {
  forbidden: [
    {
      name: "domain-is-independent",
      comment:
        "The domain declares ports and knows no adapter, wiring, compiled validator, logger, tracing, entry point or AWS/middy package.",
      severity: "error",
      from: { path: "^lib/domain/" },
      to: {
        path: [
          "^lib/(store|http|routes|notify|tokens|local|breached-passwords|hooks|events|pages)/",
          "^lib/(container|document-client|tracing|log|metrics)\\.ts$",
          "^functions/",
          "^infra/",
          "node_modules/(@aws-sdk/|@types/aws-lambda|@middy/|@aws-lambda-powertools/)",
        ],
      },
    },
    {
      name: "domain-reads-no-configuration",
      comment:
        "The domain is handed its settings; it may name their types (lib/config/settings.ts), never load, validate or read them.",
      severity: "error",
      from: { path: "^lib/domain/" },
      to: { path: ["^lib/config/(validation|environment)\\.ts$", "^lib/config\\.ts$", "^lib/compiled/"] },
    },
    {
      name: "domain-names-settings-as-types",
      comment: "`import type` from lib/config/settings.ts: no settings value or default becomes a domain dependency.",
      severity: "error",
      from: { path: "^lib/domain/" },
      to: { path: "^lib/config/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "store-does-not-call-up",
      comment: "The store implements domain ports; HTTP, routes, entry points and wiring sit above it.",
      severity: "error",
      from: { path: "^lib/store/" },
      to: {
        path: ["^lib/(http|routes|local|pages)/", "^lib/container\\.ts$", "^functions/", "^infra/"],
      },
    },
    {
      name: "store-is-handed-its-configuration",
      comment:
        "Stores get table, client and settings slices from the wiring (lib/container.ts); lib/document-client.ts is that wiring's client.",
      severity: "error",
      from: { path: "^lib/store/" },
      to: { path: ["^lib/config\\.ts$", "^lib/config/(environment|validation)\\.ts$", "^lib/document-client\\.ts$"] },
    },
    {
      name: "routes-are-handed-their-use-cases",
      comment:
        "Routes, pages and the HTTP pipeline receive use cases from their functions/<group>.ts entry: never the wiring, never a store.",
      severity: "error",
      from: { path: "^lib/(routes|http|pages)/" },
      to: { path: ["^lib/container\\.ts$", "^lib/document-client\\.ts$", "^lib/store/"] },
    },
    {
      name: "console-is-browser-code",
      comment:
        "The admin console's front end (console/) runs in the browser and talks to the service over HTTP only: it imports nothing outside console/, and nothing imports it.",
      severity: "error",
      from: { path: "^console/" },
      to: { pathNot: "^console/" },
    },
    {
      name: "nothing-imports-the-console",
      comment:
        "The console function serves the committed bundle (lib/compiled/console-app.*.txt), never console/'s sources.",
      severity: "error",
      from: { pathNot: "^console/" },
      to: { path: "^console/" },
    },
    {
      name: "nothing-imports-functions",
      comment: "Lambda handlers are entry points; only the local gateway (lib/local) loads them, as API Gateway would.",
      severity: "error",
      from: { path: "^(lib|infra)/", pathNot: "^lib/local/" },
      to: { path: "^functions/" },
    },
    {
      name: "event-mapping-is-pure",
      comment:
        "Stream record -> CloudEvents is pure: no AWS SDK, no Lambda types, no storage but the key names (docs/events.md).",
      severity: "error",
      from: { path: "^lib/events/(mapping|cloud-event|schemas|publish)\\.ts$" },
      to: {
        path: ["node_modules/(@aws-sdk/|@types/aws-lambda)", "^lib/(http|routes|local|notify|tokens)/", "^lib/store/"],
        pathNot: "^lib/store/keys\\.ts$",
      },
    },
    {
      name: "no-circular",
      comment: "An import circle makes load order matter and hides which layer depends on which.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default"] },
  },
};
