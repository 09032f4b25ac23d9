import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { SYSTEM_PERMISSIONS, USER_PERMISSIONS } from "../../lib/domain/permissions";
import { loadFunction } from "../../lib/local/functions";
import { lambdaContext } from "../../lib/local/gateway";
import { routes } from "../../lib/routes";
import { v3Error } from "../../lib/routes/schemas";
import { invoke, sampleEvent } from "../support/fixtures";

describe("GET /svc/health", () => {
  it("when storage answers, it says ok", async () => {
    const response = await invoke("meta", await sampleEvent("events/meta/health.json"));
    expect(response.statusCode).toBe(200);
    expect(response.json).toEqual({ status: "ok" });
  });
});

describe("GET /svc/api/openapi.json", () => {
  it("when fetched, it is a valid OpenAPI 3.1 document with every route of the table", async () => {
    const response = await invoke("meta", await sampleEvent("events/meta/openapi.json"));
    expect(response.statusCode).toBe(200);
    const document = response.json as unknown as { openapi: string; paths: Record<string, Record<string, unknown>> };
    const validator = new Validator();
    const result = await validator.validate(document as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    for (const route of routes) {
      expect(document.paths[route.path]?.[route.method.toLowerCase()], `${route.method} ${route.path}`).toBeDefined();
    }
  });

  it("when fetched, its oauth2 scheme has both flows, every permission, and each bearer route requires it", async () => {
    const response = await invoke("meta", await sampleEvent("events/meta/openapi.json"));
    type Flow = { authorizationUrl?: string; tokenUrl: string; scopes: Record<string, string> };
    const document = response.json as unknown as {
      paths: Record<string, Record<string, { security: Array<Record<string, string[]>> }>>;
      components: { securitySchemes: { oauth2: { type: string; flows: Record<string, Flow> } } };
    };
    const { oauth2 } = document.components.securitySchemes;
    expect(oauth2.type).toBe("oauth2");
    expect(oauth2.flows.authorizationCode).toMatchObject({
      authorizationUrl: "/svc/oauth/authorize",
      tokenUrl: "/svc/oauth/te",
    });
    expect(oauth2.flows.clientCredentials.tokenUrl).toBe("/svc/oauth/te");
    const declared = { ...oauth2.flows.authorizationCode.scopes, ...oauth2.flows.clientCredentials.scopes };
    for (const permission of [...USER_PERMISSIONS, ...SYSTEM_PERMISSIONS])
      expect(declared).toHaveProperty([permission]);
    for (const route of routes.filter((r) => r.auth?.includes("bearer"))) {
      const named = [...(route.permissions?.user ?? []), ...(route.permissions?.system ?? [])];
      const { security } = document.paths[route.path][route.method.toLowerCase()];
      // SCIM routes take an organization's SCIM token, never an OAuth access token.
      if (route.auth === "scim-bearer") {
        expect(security, route.id).toEqual([{ scimToken: [] }]);
        continue;
      }
      expect(security, route.id).toContainEqual({ oauth2: named });
      for (const scope of named) expect(declared, route.id).toHaveProperty([scope]);
    }
  });

  it("when fetched, the token endpoint documents the QR polling errors (RFC 8628 3.5)", async () => {
    const response = await invoke("meta", await sampleEvent("events/meta/openapi.json"));
    const document = response.json as unknown as {
      components: { schemas: Record<string, { properties: { error: { enum: string[] } } }> };
      paths: Record<string, Record<string, { responses: Record<string, { content: unknown }> }>>;
    };
    expect(document.paths["/svc/oauth/te"].post.responses["400"].content).toEqual({
      "application/json": { schema: { $ref: "#/components/schemas/tokenError" } },
    });
    expect(document.components.schemas.tokenError.properties.error.enum).toEqual(
      expect.arrayContaining(["invalid_grant", "authorization_pending", "access_denied", "expired_token", "slow_down"]),
    );
  });

  it("when error bodies are shared by routes, they are written once under components and referenced", async () => {
    const response = await invoke("meta", await sampleEvent("events/meta/openapi.json"));
    const document = response.json as unknown as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;
      components: { schemas: Record<string, unknown> };
    };
    expect(document.components.schemas.v3Error).toEqual(v3Error);
    const userGet = document.paths["/svc/api/v3/users/{subjectId}"].get;
    expect(userGet.responses["401"].content).toEqual({
      "application/json": { schema: { $ref: "#/components/schemas/v3Error" } },
    });
    const inline = Object.values(document.paths)
      .flatMap((operations) => Object.values(operations))
      .flatMap((operation) => Object.values(operation.responses))
      .filter((answer) => JSON.stringify(answer.content?.["application/json"]) === JSON.stringify({ schema: v3Error }));
    expect(inline).toEqual([]);
  });

  it("when its schemas are compiled, every one is valid JSON Schema 2020-12", async () => {
    const ajv = new Ajv2020({ strict: false });
    // The formats the request validator knows (lib/http/middleware/validation.ts).
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    for (const route of routes) {
      for (const schema of [route.request?.params, route.request?.query, route.request?.body?.schema]) {
        if (schema) expect(() => ajv.compile(schema)).not.toThrow();
      }
      for (const response of Object.values(route.responses)) {
        if (response.schema) expect(() => ajv.compile(response.schema as object)).not.toThrow();
      }
    }
  });
});

describe("unmatched requests ($default route)", () => {
  it("when no route has the path, it answers 404 JSON in the v3 shape", async () => {
    const response = await invoke("meta", await sampleEvent("events/meta/unknown-route.json"));
    expect(response.statusCode).toBe(404);
    expect(response.headers["content-type"]).toMatch(/^application\/json/);
    expect(response.json).toEqual({
      type: "input_error",
      error: "not_found",
      desc: "no route for /svc/api/v3/nothing/here",
    });
  });

  it("when the path exists with other methods, it answers 405 with Allow", async () => {
    const response = await invoke("meta", await sampleEvent("events/meta/wrong-method.json"));
    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe("DELETE, GET, POST");
    expect(response.json).toMatchObject({ type: "input_error", error: "method_not_allowed" });
  });

  it("when an unknown v2 path is asked for, it answers in the v2 shape", async () => {
    const event = await sampleEvent("events/meta/unknown-route.json");
    event.rawPath = "/svc/api/v2/nothing";
    const response = await invoke("meta", event);
    expect(response.statusCode).toBe(404);
    expect(response.json).toEqual({
      errors: [{ code: "not_found", desc: "no route for /svc/api/v2/nothing", params: {} }],
    });
  });
});

describe("an invocation that is not an HTTP event", () => {
  it("when a function is invoked with null (a hand-made `aws lambda invoke`), it answers a shaped 500 with the request id", async () => {
    const handler = await loadFunction("meta");
    const result = (await handler(null as never, lambdaContext("meta", "direct-1"))) as {
      statusCode: number;
      body: string;
    };
    expect(result.statusCode).toBe(500);
    expect(JSON.parse(result.body)).toEqual({
      type: "process_error",
      error: "internal_error",
      desc: expect.any(String),
      params: { requestId: expect.any(String) },
    });
  });
});
