import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import { config } from "../config";
import { allowedOriginFor, type CorsSettings, corsPreflightHeaders, corsResponseHeaders } from "../http/cors";
import { errorResult } from "../http/error-body";
import type { HttpResult } from "../http/route";
import { type FunctionName, routeKey } from "../http/route";
import { createRouteMatcher } from "../http/route-matcher";
import { log } from "../log";
import { routes } from "../routes";
import { consumedCapacity, roundTripCount, roundTripKinds } from "../store/client";
import { loadFunction } from "./functions";

/** The whole route table, as API Gateway matches it for the deployed stack. */
const matchRoute = createRouteMatcher(routes);

/**
 * The local stand-in for API Gateway's HTTP API: turns an HTTP request into a payload
 * 2.0 event, invokes the function the route table names, and writes its result back.
 */

/** API Gateway's own payload ceiling; the handlers apply the service's tighter limit. */
const GATEWAY_MAX_BODY = 10 * 1024 * 1024;

const TEXT_TYPES = /^(application\/(json|x-www-form-urlencoded|xml|[a-z.+-]*\+json)|text\/)/i;

function readBody(req: IncomingMessage): Promise<Buffer | "too-large"> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= GATEWAY_MAX_BODY) chunks.push(chunk);
    });
    req.on("end", () => done(size > GATEWAY_MAX_BODY ? "too-large" : Buffer.concat(chunks)));
    req.on("error", fail);
  });
}

export function toEvent(
  req: IncomingMessage,
  body: Buffer,
  match: { routeKey: string; params?: Record<string, string> },
): APIGatewayProxyEventV2 {
  const url = new URL(req.url ?? "/", "http://localhost");
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === "cookie") continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(",") : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const contentType = headers["content-type"] ?? "";
  const isText = body.length === 0 || TEXT_TYPES.test(contentType);
  const sourceIp = req.socket.remoteAddress?.replace(/^::ffff:/, "") ?? "127.0.0.1";
  const now = new Date();
  const cookies = req.headers.cookie?.split(";").map((c) => c.trim());
  return {
    version: "2.0",
    routeKey: match.routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ""),
    ...(cookies && { cookies }),
    headers,
    ...(Object.keys(query).length > 0 && { queryStringParameters: query }),
    ...(match.params && Object.keys(match.params).length > 0 && { pathParameters: match.params }),
    requestContext: {
      accountId: "local",
      apiId: "local",
      domainName: headers.host ?? "localhost",
      domainPrefix: "local",
      http: {
        method: req.method ?? "GET",
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp,
        userAgent: headers["user-agent"] ?? "",
      },
      requestId: randomUUID(),
      routeKey: match.routeKey,
      stage: "$default",
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length > 0 && {
      body: isText ? body.toString("utf8") : body.toString("base64"),
    }),
    isBase64Encoded: !isText,
  };
}

export function lambdaContext(functionName: string, requestId: string): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: "$LATEST",
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: "1024",
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: "local",
    getRemainingTimeInMillis: () => 29_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function writeResult(res: ServerResponse, result: HttpResult & { isBase64Encoded?: boolean; cookies?: string[] }) {
  const headers: Record<string, string | string[]> = { ...result.headers };
  if (result.cookies?.length) headers["set-cookie"] = result.cookies;
  res.writeHead(result.statusCode, headers);
  res.end(result.isBase64Encoded ? Buffer.from(result.body, "base64") : result.body);
}

/** Debug header of the benchmark's gateway: DynamoDB calls the request cost. Never sent by Lambda. */
export const ROUND_TRIPS_HEADER = "x-svc-round-trips";
/** The same calls by kind, as docs/performance.md counts them: "<reads> <writes>". */
export const ROUND_TRIP_KINDS_HEADER = "x-svc-round-trip-kinds";
/** The capacity DynamoDB reported for those calls: "<read units> <write units> <write units of transactions>". */
export const CONSUMED_CAPACITY_HEADER = "x-svc-consumed-capacity";
/** Milliseconds the function's handler took, as Lambda would bill them before rounding. */
export const HANDLER_MS_HEADER = "x-svc-handler-ms";

export interface GatewayOptions {
  /** Adds the round-trip, capacity and duration headers to every answer; only correct while requests do not overlap. */
  countRoundTrips?: boolean;
  /** Overrides the configured cors settings (tests); default: config().settings.cors. */
  cors?: CorsSettings;
  /** Default: the route table's functions in this process. */
  backend?: GatewayBackend;
}

/**
 * As the HTTP API with corsPreflight: once any origin is configured, a preflight (OPTIONS with
 * Origin and Access-Control-Request-Method) is answered here with 204 and never reaches a
 * function; an origin not allowed gets no CORS headers (the browser then blocks), never an error.
 */
function answerPreflight(req: IncomingMessage, res: ServerResponse, cors: CorsSettings): boolean {
  const isPreflight = req.method === "OPTIONS" && req.headers.origin && req.headers["access-control-request-method"];
  if (!isPreflight || cors.allowedOrigins.length === 0) return false;
  const allowOrigin = allowedOriginFor(cors, req.headers.origin);
  res.writeHead(204, allowOrigin ? corsPreflightHeaders(allowOrigin) : {});
  res.end();
  return true;
}

/** API Gateway sets these over whatever the function answered, on every route. */
function corsHeadersFor(req: IncomingMessage, cors: CorsSettings): Record<string, string> {
  const allowOrigin = allowedOriginFor(cors, req.headers.origin);
  return allowOrigin ? corsResponseHeaders(allowOrigin) : {};
}

function withCors(req: IncomingMessage, result: HttpResult, cors: CorsSettings): HttpResult {
  return { ...result, headers: { ...result.headers, ...corsHeadersFor(req, cors) } };
}

/**
 * Where the gateway sends a request: a route's function and how it is invoked. In process
 * from the route table by default; the functions of a cloud assembly for `--synth`
 * (lib/local/assembly/assembly-stack.ts).
 */
export interface GatewayBackend {
  /** The matched route's key, its function and path parameters; undefined: the `$default` route. */
  match(method: string, path: string): { fn: string; routeKey: string; params?: Record<string, string> } | undefined;
  /** The function's answer in payload 2.0's shape. */
  invoke(
    fn: string,
    event: APIGatewayProxyEventV2,
  ): Promise<HttpResult & { isBase64Encoded?: boolean; cookies?: string[] }>;
  /** The function that answers `$default`. */
  fallback: string;
}

/** The route table, each function's sources loaded in this process like a cold start. */
function inProcessBackend(options: GatewayOptions): GatewayBackend {
  return {
    fallback: "meta",
    match(method, path) {
      const match = matchRoute(method, path);
      return match.kind === "route"
        ? { fn: match.route.fn, routeKey: routeKey(match.route), params: match.params }
        : undefined;
    },
    async invoke(fn, event) {
      const handler = await loadFunction(fn as FunctionName);
      const before = roundTripCount();
      const kindsBefore = roundTripKinds();
      const capacityBefore = consumedCapacity();
      const started = performance.now();
      const result = (await handler(event, lambdaContext(fn, event.requestContext.requestId))) as HttpResult;
      const handlerMs = performance.now() - started;
      if (!options.countRoundTrips) return result;
      const kinds = roundTripKinds();
      const capacity = consumedCapacity();
      return {
        ...result,
        headers: {
          ...result.headers,
          [ROUND_TRIPS_HEADER]: String(roundTripCount() - before),
          [ROUND_TRIP_KINDS_HEADER]: `${kinds.reads - kindsBefore.reads} ${kinds.writes - kindsBefore.writes}`,
          [CONSUMED_CAPACITY_HEADER]: [
            capacity.rcu - capacityBefore.rcu,
            capacity.wcu - capacityBefore.wcu,
            capacity.transactionWcu - capacityBefore.transactionWcu,
          ].join(" "),
          [HANDLER_MS_HEADER]: handlerMs.toFixed(3),
        },
      };
    },
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, backend: GatewayBackend, cors: CorsSettings) {
  if (answerPreflight(req, res, cors)) return;
  const url = new URL(req.url ?? "/", "http://localhost");
  const body = await readBody(req);
  if (body === "too-large") {
    // What API Gateway itself answers for payloads over its limit.
    res.writeHead(413, { "content-type": "application/json", ...corsHeadersFor(req, cors) });
    res.end(JSON.stringify({ message: "Request Entity Too Large" }));
    return;
  }
  // Unmatched requests go to the `$default` route, served by the meta function as on AWS.
  const match = backend.match(req.method ?? "GET", url.pathname) ?? { fn: backend.fallback, routeKey: "$default" };
  const event = toEvent(req, body, match);
  writeResult(res, withCors(req, await backend.invoke(match.fn, event), cors));
}

export function createGateway(options: GatewayOptions = {}): Server {
  const cors = options.cors ?? config().settings.cors;
  const backend = options.backend ?? inProcessBackend(options);
  return createServer((req, res) => {
    handle(req, res, backend, cors).catch((error) => {
      log.error("gateway failure", { error });
      if (!res.headersSent) writeResult(res, withCors(req, errorResult(error, "v3", "gateway"), cors));
    });
  });
}
