import { describe, expect, it } from "vitest";
import { services } from "../../../lib/container";
import { registerClient } from "../../../lib/domain/clients/admin";
import { uniqueId } from "../../support/fixtures";
import { spentBy } from "../../support/round-trips";

describe("the client store's getMany", () => {
  it("when several applications are asked for at once, it answers those that exist, by id, without secrets, in one read", async () => {
    const ids = [uniqueId("many-a-"), uniqueId("many-b-"), uniqueId("many-c-")];
    for (const [i, clientId] of ids.entries()) {
      await registerClient(services().clients, {
        clientId,
        secret: `secret-${i}-0123456789abcdef0123456789abcdef`,
        scopes: ["openid"],
        grantTypes: ["authorization_code"],
        redirectUris: [`https://app${i}.example.com/callback`],
      });
    }
    const unknown = uniqueId("many-none-");
    const { result, total, reads } = await spentBy(() => services().clients.getMany([...ids, unknown, ids[0]]));
    expect({ total, reads }).toEqual({ total: 1, reads: 1 });
    expect([...result.keys()].sort()).toEqual([...ids].sort());
    for (const [i, clientId] of ids.entries()) {
      const record = result.get(clientId);
      expect(record).toMatchObject({ clientId, redirectUris: [`https://app${i}.example.com/callback`] });
      for (const secret of ["secretHash", "restPasswordHash", "registrationTokenHash"])
        expect(record).not.toHaveProperty(secret);
      expect(record).toEqual(await services().clients.get(clientId));
    }
    expect(await spentBy(() => services().clients.getMany([]))).toMatchObject({ total: 0 });
  });
});
