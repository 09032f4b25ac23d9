import { randomUUID } from "node:crypto";
import { appendFile, mkdir } from "node:fs/promises";
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname } from "node:path";
import { type AwsRequest, type CallScope, type IamCheck, iamChecksOf, UnknownCallError } from "./aws-calls";
import type { Decision, Denial, RolePolicies } from "./role-policies";

/**
 * The AWS endpoint the functions of a cloud assembly call (AWS_ENDPOINT_URL): every SDK
 * call is first put to the calling function's role (its access key says which), then
 * DynamoDB calls go on to DynamoDB Local and the others are answered here as the local
 * stack answers them (messages to the outbox, events to the events file, the data key
 * from the local secret). A call the role would not allow gets AWS's AccessDenied answer
 * and is kept as a denial.
 */

export interface CallingRole {
  functionId: string;
  policies: RolePolicies;
}

export interface AwsEndpointOptions {
  scope: CallScope;
  dynamodbEndpoint: string;
  /** The role of each access key the functions were given. */
  roles: Map<string, CallingRole>;
  /** SecretString of a secret, by ARN. */
  secretValue(arn: string): string | undefined;
  outboxFile: string;
  eventsFile: string;
  onDenial?(denial: Denial): void;
}

export interface AllowedCall extends IamCheck {
  functionId: string;
}

export interface AwsEndpoint {
  url: string;
  /** Calls made and allowed, each once. */
  allowed(): AllowedCall[];
  /** Calls refused by a role, or that no rule here knows. */
  denials(): Denial[];
  /** Puts a call the platform makes for a function (an event source mapping's reads) to its role. */
  authorize(functionId: string, check: IamCheck): Promise<boolean>;
  stop(): Promise<void>;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

const JSON_PROTOCOL: Record<string, string> = {
  dynamodb: "application/x-amz-json-1.0",
  secretsmanager: "application/x-amz-json-1.1",
  events: "application/x-amz-json-1.1",
};

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((done, fail) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => done(Buffer.concat(chunks)));
    req.on("error", fail);
  });
}

/** The access key and service of a SigV4 `Authorization` header. */
function credentialOf(req: IncomingMessage): { accessKeyId: string; service: string } | undefined {
  const found = /Credential=([^/]+)\/[^/]+\/[^/]+\/([^/]+)\/aws4_request/.exec(req.headers.authorization ?? "");
  return found ? { accessKeyId: found[1], service: found[2] } : undefined;
}

function parseRequest(req: IncomingMessage, service: string, body: Buffer): AwsRequest {
  const path = new URL(req.url ?? "/", "http://local").pathname;
  const target = req.headers["x-amz-target"];
  if (typeof target === "string") {
    return {
      service,
      operation: target.slice(target.indexOf(".") + 1),
      path,
      input: JSON.parse(body.toString() || "{}"),
    };
  }
  if (String(req.headers["content-type"]).startsWith("application/x-www-form-urlencoded")) {
    const input = Object.fromEntries(new URLSearchParams(body.toString()));
    return { service, operation: String(input.Action), path, input };
  }
  return { service, operation: req.method ?? "POST", path, input: {} };
}

function xml(status: number, body: string): Answer {
  return { status, headers: { "content-type": "text/xml" }, body };
}

function json(service: string, status: number, value: unknown, errorType?: string): Answer {
  return {
    status,
    headers: {
      "content-type": JSON_PROTOCOL[service] ?? "application/json",
      "x-amzn-requestid": randomUUID(),
      ...(errorType && { "x-amzn-errortype": errorType }),
    },
    body: JSON.stringify(value),
  };
}

function deniedAnswer(service: string, message: string): Answer {
  if (service === "ses" || service === "sns") {
    const code = service === "sns" ? "AuthorizationError" : "AccessDenied";
    return xml(
      403,
      `<ErrorResponse><Error><Type>Sender</Type><Code>${code}</Code><Message>${message}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
    );
  }
  if (service === "lambda") return json(service, 403, { Type: "User", Message: message }, "AccessDeniedException");
  return json(service, 400, { __type: "com.amazon.coral.service#AccessDeniedException", Message: message });
}

/** The language of a message as the outbox records it: the local courier knows it, SES and SNS do not. */
function languageOf(text: string): "ru" | "en" {
  return /[\u0400-\u04ff]/.test(text) ? "ru" : "en";
}

export async function startAwsEndpoint(options: AwsEndpointOptions): Promise<AwsEndpoint> {
  const allowed = new Map<string, AllowedCall>();
  const denials: Denial[] = [];
  const dynamodb = new URL(options.dynamodbEndpoint);
  const deny = (denial: Denial) => {
    denials.push(denial);
    options.onDenial?.(denial);
  };

  async function authorize(functionId: string, policies: RolePolicies, check: IamCheck): Promise<boolean> {
    const { decision, detail } = await policies.check(check);
    if (decision === "Allowed") {
      allowed.set(JSON.stringify([functionId, check.action, check.resource]), { functionId, ...check });
      return true;
    }
    deny({ functionId, ...check, decision: decision as Decision | "invalid", ...(detail && { detail }) });
    return false;
  }

  function forwardToDynamodb(req: IncomingMessage, body: Buffer, res: ServerResponse): void {
    const forwarded = request(
      {
        host: dynamodb.hostname,
        port: dynamodb.port,
        method: "POST",
        path: "/",
        headers: { ...req.headers, host: dynamodb.host, "accept-encoding": "identity" },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 500, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on("error", () => {
      if (!res.headersSent) res.destroy();
    });
    forwarded.end(body);
  }

  async function answerLocally(call: AwsRequest): Promise<Answer> {
    const { service, operation, input } = call;
    switch (service) {
      case "secretsmanager": {
        const value = options.secretValue(String(input.SecretId));
        if (value === undefined) {
          return json(service, 400, {
            __type: "ResourceNotFoundException",
            Message: "Secrets Manager can't find the specified secret.",
          });
        }
        return json(service, 200, {
          ARN: input.SecretId,
          Name: String(input.SecretId).split(":").at(-1),
          ...(operation === "GetSecretValue" && {
            SecretString: value,
            VersionId: "local",
            VersionStages: ["AWSCURRENT"],
          }),
        });
      }
      case "ses":
      case "email": {
        await appendLine(options.outboxFile, {
          channel: "email",
          to: input["Destination.ToAddresses.member.1"],
          subject: input["Message.Subject.Data"],
          text: input["Message.Body.Text.Data"],
          lang: languageOf(String(input["Message.Body.Text.Data"])),
          at: Math.floor(Date.now() / 1000),
        });
        return xml(
          200,
          `<SendEmailResponse xmlns="http://ses.amazonaws.com/doc/2010-12-01/"><SendEmailResult><MessageId>${randomUUID()}</MessageId></SendEmailResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></SendEmailResponse>`,
        );
      }
      case "sns": {
        await appendLine(options.outboxFile, {
          channel: "sms",
          to: String(input.PhoneNumber ?? "").replace(/^\+/, ""),
          text: input.Message,
          lang: languageOf(String(input.Message)),
          at: Math.floor(Date.now() / 1000),
        });
        return xml(
          200,
          `<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult><MessageId>${randomUUID()}</MessageId></PublishResult><ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></PublishResponse>`,
        );
      }
      case "events": {
        const entries = input.Entries as Array<{ Detail: string }>;
        await mkdir(dirname(options.eventsFile), { recursive: true });
        // The bus's copy of each event: its detail, the CloudEvent, one per line as the local bus writes it.
        await appendFile(options.eventsFile, entries.map((e) => `${e.Detail}\n`).join(""), "utf8");
        return json(service, 200, { FailedEntryCount: 0, Entries: entries.map(() => ({ EventId: randomUUID() })) });
      }
      case "lambda":
        return json(
          service,
          404,
          { Type: "User", Message: `Function not found: ${call.path}` },
          "ResourceNotFoundException",
        );
      default:
        throw new UnknownCallError(`${service} ${operation}`);
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    const credential = credentialOf(req);
    const role = credential && options.roles.get(credential.accessKeyId);
    if (!credential || !role) {
      const answer = deniedAnswer(
        credential?.service ?? "dynamodb",
        "The security token included in the request is invalid.",
      );
      res.writeHead(answer.status, answer.headers).end(answer.body);
      return;
    }
    const call = parseRequest(req, credential.service, body);
    let checks: IamCheck[];
    try {
      checks = iamChecksOf(call, options.scope);
    } catch (error) {
      if (!(error instanceof UnknownCallError)) throw error;
      deny({ functionId: role.functionId, action: error.message, resource: "", context: {}, decision: "invalid" });
      const answer = deniedAnswer(credential.service, `the local AWS endpoint does not know ${error.message}`);
      res.writeHead(answer.status, answer.headers).end(answer.body);
      return;
    }
    for (const check of checks) {
      if (!(await authorize(role.functionId, role.policies, check))) {
        const answer = deniedAnswer(
          credential.service,
          `User: arn:aws:sts::assumed-role/${role.functionId} is not authorized to perform: ${check.action} on resource: ${check.resource} because no identity-based policy allows the ${check.action} action`,
        );
        res.writeHead(answer.status, answer.headers).end(answer.body);
        return;
      }
    }
    if (credential.service === "dynamodb") return forwardToDynamodb(req, body, res);
    const answer = await answerLocally(call);
    res.writeHead(answer.status, answer.headers).end(answer.body);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error(`local AWS endpoint: ${(error as Error).stack ?? error}`);
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", () => done()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    allowed: () => [...allowed.values()],
    denials: () => [...denials],
    async authorize(functionId, check) {
      const role = [...options.roles.values()].find((r) => r.functionId === functionId);
      return role ? authorize(functionId, role.policies, check) : false;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    },
  };
}

async function appendLine(file: string, value: unknown): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await appendFile(file, `${JSON.stringify(value)}\n`, "utf8");
}
