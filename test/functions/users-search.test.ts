import { describe, expect, it } from "vitest";
import { config } from "../../lib/config";
import { services } from "../../lib/container";
import { documentClient } from "../../lib/document-client";
import { instanceIdOf } from "../../lib/domain/accounts/instance-id";
import { foldName } from "../../lib/domain/search/fold";
import { createUserSearch } from "../../lib/domain/search/users";
import { batchWriteAll } from "../../lib/store/batch";
import { roundTripCount } from "../../lib/store/client";
import { ENTITY, itemOf, keys } from "../../lib/store/keys";
import { seedAccount, systemBearer, systemToken, uniqueId, userBearer } from "../support/fixtures";
import { useGateway } from "../support/gateway";
import { request } from "../support/requests";
import { escapeRqlValue } from "../support/rql";

const search = (query: string, authorization?: string) =>
  request("users", "events/users/search-by-email.json", { query: { query }, authorization });

const subsOf = (response: { json: unknown }) =>
  (response.json as Array<{ attrs: { sub: string } }>).map((h) => h.attrs.sub);

/** interface §4.7: percent-escape & | ( ) = < > , in the value (and %, which escapes itself). */
describe("GET /svc/api/v3/users?query= (sample events)", () => {
  it("when the samples run, they find by e-mail, by names with and/or, by an escaped value, and refuse a scan", async () => {
    const maria = await seedAccount({
      sub: "sample-user",
      family_name: "Ivanova",
      given_name: "Maria",
      middle_name: "Sergeevna",
      email: { value: "maria@example.com", verified: true },
      phone_number: { value: "79991234567", verified: true },
    });
    await seedAccount({ family_name: "Smith&Sons (UK)", email: undefined, phone_number: undefined, sub: "smith-sons" });
    const byEmail = await request("users", "events/users/search-by-email.json");
    expect(byEmail.statusCode).toBe(200);
    expect(byEmail.json).toEqual([
      {
        instanceId: instanceIdOf("sample-user"),
        attrs: {
          sub: "sample-user",
          family_name: "Ivanova",
          given_name: "Maria",
          middle_name: "Sergeevna",
          locked: false,
          phone_number: { value: "79991234567", vrf: true },
          email: { value: "maria@example.com", vrf: true },
        },
      },
    ]);
    expect(subsOf(await request("users", "events/users/search-and-or.json"))).toEqual([maria.sub]);
    expect(subsOf(await request("users", "events/users/search-escaped-value.json"))).toEqual(["smith-sons"]);
    const scan = await request("users", "events/users/search-not-indexed.json");
    expect(scan.statusCode).toBe(400);
    expect(scan.json).toEqual({
      type: "input_error",
      error: "not_indexed",
      desc: "locked is not indexed: combine with and() an equality on an indexed attribute (sub, email, phone_number, family_name, given_name, middle_name)",
      pos: "query",
      params: { attributes: ["locked"] },
    });
  });
});

describe("user search lookups", () => {
  it("when searched by each indexed attribute, it finds the account; case and phone punctuation do not matter", async () => {
    const family = uniqueId("Фамилия");
    const account = await seedAccount({ family_name: family, given_name: "Ёжик", middle_name: "Zoë" });
    const email = account.email?.value as string;
    const phone = account.phone_number?.value as string;
    const formattedPhone = `+${phone[0]} (${phone.slice(1, 4)}) ${phone.slice(4, 7)}-${phone.slice(7, 9)}-${phone.slice(9)}`;
    for (const query of [
      `sub=string:${account.sub}`,
      `email=string:${email.toUpperCase()}`,
      `eq(phone_number,string:${escapeRqlValue(formattedPhone)})`,
      `phone_number=${phone}`,
      `family_name=string:${family.toUpperCase()}`,
      `and(family_name=string:${family},given_name=string:ёжик)`,
      `and(family_name=string:${family},middle_name=string:${encodeURIComponent("ZOË")})`,
    ]) {
      const response = await search(query);
      expect({ query, status: response.statusCode, subs: subsOf(response) }).toEqual({
        query,
        status: 200,
        subs: [account.sub],
      });
    }
  });

  it("when a lookup is by a unique attribute it costs two round trips; by a name, a Query and a BatchGetItem", async () => {
    const account = await seedAccount({ family_name: uniqueId("Round") });
    const token = await systemBearer(["svc_api_sys_users"]);
    await search(`sub=string:${account.sub}`, token);
    let before = roundTripCount();
    await search(`email=string:${account.email?.value}`, token);
    expect(roundTripCount() - before).toBe(2);
    before = roundTripCount();
    await search(`sub=string:${account.sub}`, token);
    expect(roundTripCount() - before).toBe(1);
    before = roundTripCount();
    await search(`family_name=string:${account.family_name}`, token);
    expect(roundTripCount() - before).toBe(2);
    // A unique match makes the name lookups of the same and() unnecessary.
    before = roundTripCount();
    await search(`and(family_name=string:${account.family_name},email=string:${account.email?.value})`, token);
    expect(roundTripCount() - before).toBe(2);
  });

  it("when and/or nest, the answer is exactly the accounts the whole query matches, by sub", async () => {
    const family = uniqueId("Nest");
    const a = await seedAccount({ family_name: family, given_name: "Anna", locked: false });
    const b = await seedAccount({ family_name: family, given_name: "Boris", locked: true });
    const c = await seedAccount({ family_name: family, given_name: "Clara", locked: true });
    const other = await seedAccount({ family_name: uniqueId("Other"), given_name: "Anna" });
    const f = `family_name=string:${family}`;
    expect(subsOf(await search(`${f}&(given_name=string:Anna|given_name=string:Clara)`))).toEqual(
      [a.sub, c.sub].sort(),
    );
    expect(subsOf(await search(`and(${f},locked=true)`))).toEqual([b.sub, c.sub].sort());
    expect(
      subsOf(await search(`and(${f},locked=boolean:true,or(given_name=string:boris,given_name=string:anna))`)),
    ).toEqual([b.sub]);
    expect(subsOf(await search(`or(and(${f},given_name=string:Clara),sub=string:${other.sub})`))).toEqual(
      [c.sub, other.sub].sort(),
    );
    expect(subsOf(await search(`${f}&limit(2)`))).toEqual([a.sub, b.sub, c.sub].sort().slice(0, 2));
    expect(subsOf(await search(`${f}&limit(2,2)`))).toEqual([a.sub, b.sub, c.sub].sort().slice(2));
    expect(subsOf(await search(`and(${f},family_name=number:5)`))).toEqual([]);
  });

  it("when nothing matches, it answers an empty array", async () => {
    expect((await search(`sub=string:${"x".repeat(3000)}`)).json).toEqual([]);
    expect((await search(`family_name=string:${"Я".repeat(3000)}`)).json).toEqual([]);
    expect((await search("sub=string:has space")).json).toEqual([]);
    expect((await search("email=string:nobody@nowhere.example")).json).toEqual([]);
    expect((await search("email=string:not-an-email")).json).toEqual([]);
    expect((await search(`family_name=string:${uniqueId("Nobody")}`)).json).toEqual([]);
  });

  it.each(["&", "|", "(", ")", "=", "<", ">", ",", "%"])(
    "when a name holds %s, escaping it as the spec says finds the account over HTTP",
    async (special) => {
      const family = `${uniqueId("Sp")}${special}x${special}`;
      const account = await seedAccount({ family_name: family });
      expect(subsOf(await viaHttp(`family_name=string:${escapeRqlValue(family)}`))).toEqual([account.sub]);
    },
  );

  it("when a value is Unicode or empty, it is found over HTTP too", async () => {
    const family = `${uniqueId("Юникод")}-山田-🙂`;
    const account = await seedAccount({ family_name: family, middle_name: "" });
    expect(subsOf(await viaHttp(`family_name=string:${escapeRqlValue(family)}`))).toEqual([account.sub]);
    expect(subsOf(await viaHttp(`and(family_name=string:${escapeRqlValue(family)},middle_name=string:)`))).toEqual([
      account.sub,
    ]);
    expect(subsOf(await viaHttp(`and(family_name=string:${escapeRqlValue(family)},middle_name=)`))).toEqual([
      account.sub,
    ]);
  });

  it("when names change through the attribute call, the old value stops finding the account at once", async () => {
    const before = uniqueId("Old");
    const after = uniqueId("New");
    const account = await seedAccount({ family_name: before });
    const changed = await request("users", "events/users/change-user-system.json", {
      params: { subjectId: instanceIdOf(account.sub) },
      body: { family_name: after, middle_name: null },
    });
    expect(changed.statusCode).toBe(200);
    expect(subsOf(await search(`family_name=string:${before}`))).toEqual([]);
    expect(subsOf(await search(`family_name=string:${after}`))).toEqual([account.sub]);
    expect(subsOf(await search(`and(family_name=string:${after},middle_name=string:Ivanovich)`))).toEqual([]);
    const email = `${uniqueId("moved")}@example.com`;
    await request("users", "events/users/change-user-system.json", {
      params: { subjectId: instanceIdOf(account.sub) },
      body: { email: { value: email, vrf: true } },
    });
    expect(subsOf(await search(`email=string:${email}`))).toEqual([account.sub]);
    expect(subsOf(await search(`email=string:${account.email?.value}`))).toEqual([]);
  });

  it("when more than 1,000 accounts share a name, it asks to narrow the query unless another condition does", async () => {
    const family = uniqueId("Common");
    const one = await seedAccount({ family_name: family });
    const folded = foldName(family);
    await batchWriteAll(
      documentClient(),
      config().tableName,
      Array.from({ length: 1000 }, (_, i) => ({
        PutRequest: {
          Item: itemOf(ENTITY.nameIndex, keys.nameIndex("family_name", folded, `bulk-${i}`), {
            sub: `bulk-${i}`,
            attribute: "family_name",
          }),
        },
      })),
    );
    const tooMany = await search(`family_name=string:${family}`);
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json).toEqual({
      type: "input_error",
      error: "too_many_results",
      desc: "more than 1000 accounts match on family_name: narrow the query with and()",
      pos: "query",
      params: { attribute: "family_name", limit: 1000 },
    });
    expect(subsOf(await search(`and(family_name=string:${family},sub=string:${one.sub})`))).toEqual([one.sub]);
  });
});

describe("user search errors", () => {
  it.each([
    ["locked=true", "not_indexed"],
    ["or(email=string:a@b.cd,locked=false)", "not_indexed"],
    ["nickname=string:x", "unknown_attribute"],
    ["email=string:a@b.cd)", "wrong_query"],
    ["family_name<x", "wrong_query"],
    ["limit(5)", "wrong_query"],
  ])("when the query is %j, it answers 400 %s", async (query, error) => {
    const response = await search(query);
    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ type: "input_error", error, pos: "query" });
  });

  it("when the query is missing or empty, it answers 400 naming it", async () => {
    for (const query of [{}, { query: "" }] as Array<Record<string, string>>) {
      const response = await request("users", "events/users/search-by-email.json", { query });
      expect(response.statusCode).toBe(400);
      expect((response.json.errors as Array<{ pos: string }>)[0].pos).toBe("query");
    }
  });

  it("when a user token or a token without svc_api_sys_users calls, it answers 401", async () => {
    const account = await seedAccount();
    const user = await search(`sub=string:${account.sub}`, await userBearer(account.sub, ["svc_api_user"]));
    expect(user.statusCode).toBe(401);
    const chg = await search(`sub=string:${account.sub}`, await systemBearer(["svc_api_sys_users_chg"]));
    expect(chg.json.desc).toBe("insufficient_scope");
  });

  it("when search.indexedAttributes leaves names out, a name alone is not_indexed but may narrow a lookup", async () => {
    const account = await seedAccount({ family_name: uniqueId("Cfg") });
    const searchUsers = createUserSearch(services().accountSearch, ["sub", "email"]);
    await expect(searchUsers(`family_name=string:${account.family_name}`)).rejects.toMatchObject({
      error: "not_indexed",
      details: { params: { attributes: ["family_name"] } },
    });
    const hits = await searchUsers(`and(family_name=string:${account.family_name},sub=string:${account.sub})`);
    expect(hits.map((h) => h.attrs.sub)).toEqual([account.sub]);
  });
});

const gatewayBase = useGateway();

/** As a client would: the assembled query URL-encoded as a whole, over HTTP. */
async function viaHttp(query: string) {
  const token = await systemToken(["svc_api_sys_users"]);
  const response = await fetch(`${gatewayBase()}/svc/api/v3/users?query=${encodeURIComponent(query)}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status).toBe(200);
  return { json: (await response.json()) as unknown };
}
