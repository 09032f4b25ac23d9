import { describe, expect, it } from "vitest";
import { besideKeysFor, readMadeFor } from "../../../lib/http/along-session";

describe("reads planned beside the signing keys", () => {
  it("when the route asks for the read it would make, it gets what was found, even nothing", async () => {
    const found = await besideKeysFor("anna", async () => ({ links: [] })).beside();
    expect(readMadeFor(found, "anna")).toEqual({ value: { links: [] } });
    const nothing = await besideKeysFor("ghost", async () => undefined).beside();
    expect(readMadeFor(nothing, "ghost")).toEqual({ value: undefined });
  });

  it("when the read was made for another account, or none was made, the route gets nothing", async () => {
    const found = await besideKeysFor("anna", async () => ({ links: [] })).beside();
    expect(readMadeFor(found, "boris")).toBeUndefined();
    expect(readMadeFor(found, undefined)).toBeUndefined();
    expect(readMadeFor(undefined, "anna")).toBeUndefined();
    // A user-mode plan's result is not an AlongKeys read.
    expect(readMadeFor([{ id: "device" }], "anna")).toBeUndefined();
  });
});
