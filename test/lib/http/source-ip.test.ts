import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { sourceIpOf } from "../../../lib/http/source-ip";

function event(forwarded: string | undefined): Pick<APIGatewayProxyEventV2, "headers" | "requestContext"> {
  return {
    headers: forwarded === undefined ? {} : { "x-forwarded-for": forwarded },
    requestContext: { http: { sourceIp: "198.51.100.7" } } as APIGatewayProxyEventV2["requestContext"],
  };
}

describe("sourceIpOf", () => {
  it("when X-Forwarded-For starts with an address, it is the user's", () => {
    expect(sourceIpOf(event("203.0.113.10, 10.0.0.1"))).toBe("203.0.113.10");
    expect(sourceIpOf(event("2001:db8::1"))).toBe("2001:db8::1");
  });

  it("when X-Forwarded-For is missing or not an address, it is the connection's", () => {
    expect(sourceIpOf(event(undefined))).toBe("198.51.100.7");
    expect(sourceIpOf(event("é".repeat(5000)))).toBe("198.51.100.7");
    expect(sourceIpOf(event("unknown, 203.0.113.10"))).toBe("198.51.100.7");
  });
});
