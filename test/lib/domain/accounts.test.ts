import { describe, expect, it } from "vitest";
import { normalizeEmail, normalizePhone } from "../../../lib/domain/accounts/contacts";
import { instanceIdOf, subjectOfInstanceId } from "../../../lib/domain/accounts/instance-id";

describe("contacts", () => {
  it.each([
    ["+7 (999) 123-45-67", "79991234567"],
    ["79991234567", "79991234567"],
    ["+44 20 7946 0958", "442079460958"],
    ["9991234567", undefined],
    ["+7 999 abc", undefined],
    ["1234567890123456", undefined],
    ["", undefined],
  ])("when the phone is %j, it normalizes to %j", (raw, expected) => {
    expect(normalizePhone(raw)).toBe(expected);
  });

  it.each([
    ["Maria@Example.COM ", "maria@example.com"],
    ["a.b+tag@sub.example.org", "a.b+tag@sub.example.org"],
    ["no-at.example.com", undefined],
    ["two@@example.com", undefined],
    ["space in@example.com", undefined],
    ["nodot@example", undefined],
  ])("when the e-mail is %j, it normalizes to %j", (raw, expected) => {
    expect(normalizeEmail(raw)).toBe(expected);
  });
});

describe("instanceId", () => {
  it.each(["sample-user", "ivan@example.com", "Юрий", "a"])("when %j round-trips, it gives the same sub", (sub) => {
    expect(subjectOfInstanceId(instanceIdOf(sub))).toBe(sub);
  });

  it.each(["sample-user", "u1.", "u1.!!", "u2.c2FtcGxl", "u1.c2FtcGxlLXVzZXI="])(
    "when %j is not canonical, it is refused",
    (id) => {
      expect(subjectOfInstanceId(id)).toBeUndefined();
    },
  );
});
