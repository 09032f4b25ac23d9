import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { EVENT_TYPES } from "../../lib/events/cloud-event";
import { eventSchemaFiles } from "../../lib/events/schemas";
import { EVENT_SCHEMAS_DIR } from "../../scripts/compile-schemas";

describe("event schemas (schemas/events)", () => {
  it("when lib/events/schemas.ts changes, the committed files must be written again (npm run compile-schemas)", () => {
    for (const [path, text] of Object.entries(eventSchemaFiles())) {
      expect(readFileSync(path, "utf8"), path).toBe(text);
    }
  });

  it("when the folder is listed, it holds one schema per event type and nothing else", () => {
    expect(readdirSync(EVENT_SCHEMAS_DIR).sort()).toEqual(EVENT_TYPES.map((type) => `${type}.json`).sort());
  });
});
