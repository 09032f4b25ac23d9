import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyPatch, type PatchOperation, ScimPatchError } from "../../../../lib/domain/scim/patch";

const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const CORE_USER = "urn:ietf:params:scim:schemas:core:2.0:User";

/** Frozen all the way down, so that a patch writing into its input throws. */
function frozen<T>(value: T): T {
  if (typeof value === "object" && value !== null) {
    for (const item of Object.values(value)) frozen(item);
    Object.freeze(value);
  }
  return value;
}

const user = frozen({
  id: "u-1",
  userName: "bjensen@example.com",
  active: true,
  name: { givenName: "Barbara", middleName: "Jane", familyName: "Jensen" },
  emails: [
    { value: "bjensen@example.com", type: "work", primary: true },
    { value: "babs@example.org", type: "home" },
  ],
  [ENTERPRISE]: { department: "Tours" },
});

const group = frozen({
  id: "g-1",
  displayName: "Admins",
  members: [{ value: "u1", display: "a@b" }, { value: "u2" }],
});

const patch = (resource: Record<string, unknown>, ...operations: PatchOperation[]) => applyPatch(resource, operations);

function refusal(resource: Record<string, unknown>, ...operations: PatchOperation[]): string {
  try {
    applyPatch(resource, operations);
  } catch (error) {
    if (error instanceof ScimPatchError) return error.scimType;
    throw error;
  }
  throw new Error("the patch was applied");
}

describe("Okta's payloads", () => {
  it("deactivates: replace without a path", () => {
    const body = {
      schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
      Operations: [{ op: "replace", value: { active: false } }],
    };
    const result = applyPatch(user, body.Operations);
    expect(result.active).toBe(false);
    expect(user.active).toBe(true);
  });

  it("replaces the password and the profile, merging the name's sub-attributes", () => {
    const result = patch(
      user,
      { op: "replace", value: { password: "t1meMa$heen" } },
      { op: "replace", value: { name: { givenName: "Babs", familyName: "Smith" }, title: "Guide" } },
    );
    expect(result.password).toBe("t1meMa$heen");
    expect(result.name).toEqual({ givenName: "Babs", middleName: "Jane", familyName: "Smith" });
    expect(result.title).toBe("Guide");
  });

  it("adds group members, skipping one already there", () => {
    const result = patch(group, {
      op: "add",
      path: "members",
      value: [
        { value: "u3", display: "c@d" },
        { value: "u1", display: "a@b" },
      ],
    });
    expect(result.members).toEqual([{ value: "u1", display: "a@b" }, { value: "u2" }, { value: "u3", display: "c@d" }]);
  });

  it("removes a member by filter, and again without complaint", () => {
    const once = patch(group, { op: "remove", path: 'members[value eq "u1"]' });
    expect(once.members).toEqual([{ value: "u2" }]);
    expect(patch(once, { op: "remove", path: 'members[value eq "u1"]' })).toEqual(once);
  });

  it("renames a group, the value repeating the group's own id", () => {
    const result = patch(group, { op: "replace", value: { id: "g-1", displayName: "New" } });
    expect(result).toEqual({ ...group, displayName: "New" });
    expect(refusal(group, { op: "replace", value: { id: "g-2", displayName: "New" } })).toBe("mutability");
  });
});

describe("Entra ID's payloads", () => {
  it("deactivates with a string boolean, in any case, with or without a path", () => {
    expect(patch(user, { op: "Replace", path: "active", value: "False" }).active).toBe(false);
    const inactive = { ...user, active: false };
    expect(patch(inactive, { op: "Replace", path: "active", value: "TRUE" }).active).toBe(true);
    expect(patch(user, { op: "Replace", value: { active: "false" } }).active).toBe(false);
  });

  it("adds the work address through a filtered path", () => {
    const result = patch(user, { op: "Add", path: 'emails[type eq "work"].value', value: "x@y" });
    expect(result.emails).toEqual([
      { value: "x@y", type: "work", primary: true },
      { value: "babs@example.org", type: "home" },
    ]);
  });

  it("adds the work address to a user with none: the element the filter describes", () => {
    const result = patch(
      { id: "u-2", userName: "x" },
      { op: "Add", path: 'emails[type eq "work"].value', value: "x@y" },
    );
    expect(result.emails).toEqual([{ type: "work", value: "x@y" }]);
  });

  it("replaces a sub-attribute", () => {
    const result = patch(user, { op: "Replace", path: "name.familyName", value: "Z" });
    expect(result.name).toEqual({ givenName: "Barbara", middleName: "Jane", familyName: "Z" });
  });

  it("adds the manager in the enterprise extension, as the complex attribute RFC 7643 makes it", () => {
    const path = `${ENTERPRISE}:manager`;
    expect(patch(user, { op: "Add", path, value: "mgr-id" })[ENTERPRISE]).toEqual({
      department: "Tours",
      manager: { value: "mgr-id" },
    });
    const bare = patch({ id: "u-2", userName: "x" }, { op: "Add", path, value: "mgr-id" });
    expect(bare[ENTERPRISE]).toEqual({ manager: { value: "mgr-id" } });
    expect(patch(bare, { op: "Replace", path: `${path}.value`, value: "other" })[ENTERPRISE]).toEqual({
      manager: { value: "other" },
    });
    expect(patch(bare, { op: "Remove", path })[ENTERPRISE]).toEqual({});
  });

  it("removes members named in the value; the last one leaves no members", () => {
    expect(patch(group, { op: "Remove", path: "members", value: [{ value: "u2" }] }).members).toEqual([
      { value: "u1", display: "a@b" },
    ]);
    const empty = patch(group, { op: "Remove", path: "members", value: [{ value: "u1" }, { value: "u2" }] });
    expect(empty).toEqual({ id: "g-1", displayName: "Admins" });
  });

  it("adds without a path: dotted keys and URN keys are paths", () => {
    const result = patch(user, {
      op: "Add",
      value: { displayName: "Babs", "name.givenName": "B", [`${ENTERPRISE}:department`]: "Sales" },
    });
    expect(result.displayName).toBe("Babs");
    expect(result.name).toEqual({ givenName: "B", middleName: "Jane", familyName: "Jensen" });
    expect(result[ENTERPRISE]).toEqual({ department: "Sales" });
  });

  it("merges an extension's object given under its schema URI, with or without a path", () => {
    const value = { [ENTERPRISE]: { costCenter: "4130" } };
    expect(patch(user, { op: "replace", value })[ENTERPRISE]).toEqual({ department: "Tours", costCenter: "4130" });
    expect(patch(user, { op: "add", path: ENTERPRISE, value: { costCenter: "4130" } })[ENTERPRISE]).toEqual({
      department: "Tours",
      costCenter: "4130",
    });
  });
});

describe("paths and values", () => {
  it("matches names in any case, keeping the existing key's spelling", () => {
    const result = patch(
      user,
      { op: "replace", path: "USERNAME", value: "b@x" },
      { op: "add", path: "NickName", value: "B" },
    );
    expect(result.userName).toBe("b@x");
    expect(Object.keys(result)).not.toContain("USERNAME");
    expect(result.NickName).toBe("B");
  });

  it("takes a core schema's URI as the top level", () => {
    expect(patch(user, { op: "replace", path: `${CORE_USER}:userName`, value: "b@x" }).userName).toBe("b@x");
    expect(patch(user, { op: "replace", path: `${CORE_USER}:name.givenName`, value: "B" }).name).toMatchObject({
      givenName: "B",
    });
  });

  it("removes an attribute, a sub-attribute, a filtered element's sub-attribute; a missing one is no error", () => {
    expect(patch(user, { op: "remove", path: "name" })).not.toHaveProperty("name");
    expect(patch(user, { op: "remove", path: "name.middleName" }).name).toEqual({
      givenName: "Barbara",
      familyName: "Jensen",
    });
    expect(patch(user, { op: "remove", path: 'emails[type eq "work"].primary' }).emails).toEqual([
      { value: "bjensen@example.com", type: "work" },
      { value: "babs@example.org", type: "home" },
    ]);
    expect(patch(user, { op: "remove", path: "nickName" })).toEqual(user);
    expect(patch(user, { op: "remove", path: 'emails[type eq "other"]' })).toEqual(user);
  });

  it("replaces a multi-valued attribute whole, and filtered elements whole", () => {
    expect(patch(user, { op: "replace", path: "emails", value: [{ value: "a@b" }] }).emails).toEqual([
      { value: "a@b" },
    ]);
    expect(
      patch(user, { op: "replace", path: 'emails[type eq "home"]', value: { value: "c@d", type: "other" } }).emails,
    ).toEqual([user.emails[0], { value: "c@d", type: "other" }]);
  });

  it("keeps one primary: the element just written", () => {
    const added = patch(user, { op: "add", path: "emails", value: { value: "new@x", type: "other", primary: true } });
    expect(added.emails).toEqual([
      { value: "bjensen@example.com", type: "work", primary: false },
      { value: "babs@example.org", type: "home" },
      { value: "new@x", type: "other", primary: true },
    ]);
    const replaced = patch(user, { op: "replace", path: 'emails[type eq "home"].primary', value: true });
    expect(replaced.emails).toEqual([
      { value: "bjensen@example.com", type: "work", primary: false },
      { value: "babs@example.org", type: "home", primary: true },
    ]);
  });

  it("applies the operations in order", () => {
    const result = patch(
      group,
      { op: "remove", path: "members" },
      { op: "add", path: "members", value: [{ value: "u9" }] },
    );
    expect(result.members).toEqual([{ value: "u9" }]);
  });

  it("leaves the input and the operations' values as they were", () => {
    const value = { value: "u3" };
    const result = patch(group, { op: "add", path: "members", value: [value] });
    expect(result.members).toContainEqual({ value: "u3" });
    expect(group.members).toHaveLength(2);
    expect(result.members).not.toContain(value);
  });
});

describe("refusals", () => {
  it.each<[string, PatchOperation, string]>([
    ["an unknown op", { op: "move", path: "title", value: "x" }, "invalidSyntax"],
    ["remove without a path", { op: "remove" }, "noTarget"],
    ["remove without a path, with a value", { op: "Remove", value: { title: "x" } }, "noTarget"],
    ["a path to id", { op: "replace", path: "id", value: "x" }, "mutability"],
    ["a path to meta", { op: "replace", path: "meta.created", value: "x" }, "mutability"],
    ["a path to schemas", { op: "add", path: "schemas", value: ["x"] }, "mutability"],
    ["an id in a value without a path", { op: "replace", value: { id: "other" } }, "mutability"],
    ["a bad filter in a path", { op: "replace", path: "emails[type eq].value", value: "x" }, "invalidPath"],
    ["an unclosed bracket", { op: "replace", path: 'emails[type eq "work"', value: "x" }, "invalidPath"],
    ["text after the bracket", { op: "replace", path: 'emails[type eq "work"]value', value: "x" }, "invalidPath"],
    ["a malformed path", { op: "replace", path: "name..givenName", value: "x" }, "invalidPath"],
    ["an empty path", { op: "replace", path: "", value: "x" }, "invalidPath"],
    ["a malformed key without a path", { op: "add", value: { "bad key": "x" } }, "invalidPath"],
    [
      "a filtered replace that matches nothing",
      { op: "replace", path: 'emails[type eq "other"].value', value: "x" },
      "noTarget",
    ],
    [
      "a filter on a single-valued attribute",
      { op: "replace", path: 'userName[value eq "x"]', value: "x" },
      "invalidPath",
    ],
    ["a sub-attribute of a simple attribute", { op: "replace", path: "userName.first", value: "x" }, "invalidPath"],
    ["add without a value", { op: "add", path: "title" }, "invalidValue"],
    ["a value without a path that is no object", { op: "replace", value: "x" }, "invalidValue"],
    ["a value without a path that is a list", { op: "replace", value: [{ title: "x" }] }, "invalidValue"],
    ["an extension's URI with no object", { op: "replace", value: { [ENTERPRISE]: "x" } }, "invalidValue"],
    ["an extension's path with no object", { op: "add", path: ENTERPRISE, value: "x" }, "invalidValue"],
  ])("%s", (_, operation, scimType) => {
    expect(refusal(user, operation)).toBe(scimType);
  });

  it("refuses an operation with no op, as a parsed body may hold", () => {
    const operations: PatchOperation[] = JSON.parse('[{"path":"title","value":"x"}]');
    expect(refusal(user, ...operations)).toBe("invalidSyntax");
  });

  it("refuses the names the caller makes read-only", () => {
    const readOnly = new Set(["groups", "name.formatted"]);
    expect(() => applyPatch(user, [{ op: "add", path: "groups", value: [] }], { readOnly })).toThrow(ScimPatchError);
    expect(() => applyPatch(user, [{ op: "add", value: { "name.formatted": "x" } }], { readOnly })).toThrow(
      ScimPatchError,
    );
    expect(applyPatch(user, [{ op: "add", path: "name.givenName", value: "x" }], { readOnly })).toBeDefined();
  });

  it("applies nothing when a later operation fails", () => {
    expect(() =>
      patch(user, { op: "replace", path: "title", value: "x" }, { op: "replace", path: "id", value: "y" }),
    ).toThrow(ScimPatchError);
    expect(user).not.toHaveProperty("title");
  });
});

describe("properties", () => {
  const name = fc
    .stringMatching(/^[A-Za-z][A-Za-z0-9]{0,8}$/)
    .filter((n) => !["id", "meta", "schemas", "active"].includes(n.toLowerCase()));
  const scalar = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean());
  const resource = fc.dictionary(name, scalar, { maxKeys: 5 });

  it("reads back what a replace of a simple attribute wrote, and changes nothing else", () => {
    fc.assert(
      fc.property(resource, name, scalar, (before, attribute, value) => {
        const input = frozen({ id: "r-1", ...before });
        const after = applyPatch(input, [{ op: "replace", path: attribute, value }]);
        const key = Object.keys(input).find((k) => k.toLowerCase() === attribute.toLowerCase()) ?? attribute;
        expect(after[key]).toEqual(value);
        expect({ ...after, [key]: undefined }).toEqual({ ...input, [key]: undefined });
      }),
      { numRuns: 300 },
    );
  });
});
