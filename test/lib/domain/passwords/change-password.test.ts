import { describe, expect, it, vi } from "vitest";
import { passwordChangeDeps } from "../../../../lib/container";
import { verifyPassword } from "../../../../lib/domain/credentials/password-hash";
import { type Courier, MessageNotSentError } from "../../../../lib/domain/messages/ports";
import { changePassword, type PasswordChangeInput } from "../../../../lib/domain/passwords/change-password";
import { seedAccount } from "../../../support/fixtures";
import { outbox } from "../../../support/outbox";
import { storedItems, storedPasswordCredential } from "../../../support/stored";

const OLD = "correct horse battery staple";

/** Hashes begun so far: the real hash, counted, to see what runs beside the SMS. */
const hashes = vi.hoisted(() => ({ started: 0 }));
vi.mock("../../../../lib/domain/credentials/password-hash", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../../lib/domain/credentials/password-hash")>();
  return {
    ...real,
    hashPassword: (...args: Parameters<typeof real.hashPassword>) => {
      hashes.started += 1;
      return real.hashPassword(...args);
    },
  };
});

function input(sub: string, overrides: Partial<PasswordChangeInput> = {}): PasswordChangeInput {
  return {
    sub,
    mode: "system",
    resetSessions: true,
    language: "en",
    event: { cId: "app", ip: "203.0.113.7", ua: "test" },
    ...overrides,
  };
}

describe("changePassword: what runs side by side", () => {
  it("when a generated password goes out by SMS, its hash is already running while the SMS is sent", async () => {
    const account = await seedAccount({}, OLD);
    const deps = passwordChangeDeps();
    let hashingDuringSms: boolean | undefined;
    const before = hashes.started;
    const watchingSms: Courier = {
      send: async (channel, ...rest) => {
        if (channel === "sms") hashingDuringSms = hashes.started > before;
        return deps.courier.send(channel, ...rest);
      },
    };
    await changePassword(input(account.sub, { sendPswdToAttr: "phone_number" }), { ...deps, courier: watchingSms });
    expect(hashingDuringSms).toBe(true);
    // One hash in all, and it is the one stored: the SMS's password opens the account.
    expect(hashes.started - before).toBe(1);
    const sent = /: (\S+)$/.exec(outbox(account.phone_number?.value).at(-1)?.text ?? "")?.[1] as string;
    expect(await verifyPassword(sent, await storedPasswordCredential(account.sub))).toBe(true);
  });

  it("when the generated password's SMS fails, it answers message_not_sent and the hash begun meanwhile stores nothing", async () => {
    const account = await seedAccount({}, OLD);
    const deps = passwordChangeDeps();
    const failingSms: Courier = {
      send: async (channel, ...rest) => {
        if (channel === "sms") throw new MessageNotSentError("sms", "provider down");
        return deps.courier.send(channel, ...rest);
      },
    };
    await expect(
      changePassword(input(account.sub, { sendPswdToAttr: "phone_number" }), { ...deps, courier: failingSms }),
    ).rejects.toMatchObject({ status: 502, error: "message_not_sent" });
    expect(await verifyPassword(OLD, await storedPasswordCredential(account.sub))).toBe(true);
    expect((await storedItems(account.sub, "EVENT#")).filter((e) => e.type === "password_change")).toEqual([]);
  });

  it("when the session reset fails after the commit, the failure is the answer and the notice still went out", async () => {
    const account = await seedAccount({}, OLD);
    const deps = passwordChangeDeps();
    const sessions = {
      ...deps.sessions,
      endSessionsAndDevices: async () => {
        throw Object.assign(new Error("storage gone"), { name: "ServiceUnavailable" });
      },
    };
    await expect(
      changePassword(input(account.sub, { password: "a brand new passphrase" }), { ...deps, sessions }),
    ).rejects.toMatchObject({ name: "ServiceUnavailable" });
    // Committed before the reset: the new password holds, and its owner was told.
    expect(await verifyPassword("a brand new passphrase", await storedPasswordCredential(account.sub))).toBe(true);
    expect(outbox(account.email?.value).at(-1)).toMatchObject({
      channel: "email",
      subject: "Your password was changed",
    });
  });
});
