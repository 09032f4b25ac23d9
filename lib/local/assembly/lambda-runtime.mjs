// One Lambda execution environment (lib/local/assembly/lambda-containers.ts): plain node, no
// loaders, the function's environment as the template sets it plus what Lambda sets. It
// imports the bundled handler from LAMBDA_TASK_ROOT once (the init phase), then runs one
// invocation at a time from its parent, as Lambda's runtime interface does.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const [file, exportName] = (() => {
  const handler = process.env._HANDLER ?? "";
  const dot = handler.lastIndexOf(".");
  return [handler.slice(0, dot), handler.slice(dot + 1)];
})();

function errorOf(error) {
  return {
    errorType: error?.name ?? "Error",
    errorMessage: error?.message ?? String(error),
    stack: typeof error?.stack === "string" ? error.stack.split("\n") : [],
  };
}

async function init() {
  // Lambda's Node runtimes look for the file with these extensions, in this order.
  const found = [".js", ".mjs", ".cjs"]
    .map((ext) => join(process.env.LAMBDA_TASK_ROOT ?? "", `${file}${ext}`))
    .find((path) => existsSync(path));
  if (!found) throw Object.assign(new Error(`Cannot find module '${file}'`), { name: "Runtime.ImportModuleError" });
  const module = await import(pathToFileURL(found).href);
  const handler = module[exportName];
  if (typeof handler !== "function") {
    throw Object.assign(new Error(`${file}.${exportName} is undefined or not exported`), {
      name: "Runtime.HandlerNotFound",
    });
  }
  return handler;
}

const handler = await init().catch((error) => {
  process.send({ type: "init-error", error: errorOf(error) });
  return undefined;
});
if (handler) process.send({ type: "ready" });

process.on("message", async (message) => {
  if (message.type !== "invoke" || !handler) return;
  const { id, event, requestId, deadline, traceId } = message;
  if (traceId) process.env._X_AMZN_TRACE_ID = traceId;
  const context = {
    callbackWaitsForEmptyEventLoop: true,
    functionName: process.env.AWS_LAMBDA_FUNCTION_NAME,
    functionVersion: process.env.AWS_LAMBDA_FUNCTION_VERSION,
    invokedFunctionArn: message.functionArn,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    awsRequestId: requestId,
    logGroupName: process.env.AWS_LAMBDA_LOG_GROUP_NAME,
    logStreamName: process.env.AWS_LAMBDA_LOG_STREAM_NAME,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
  try {
    const result = await handler(event, context);
    process.send({ type: "result", id, result });
  } catch (error) {
    process.send({ type: "result", id, error: errorOf(error) });
  }
});

// The parent gone (stopped, or killed outright): the IPC channel closes, and so does this.
process.on("disconnect", () => process.exit(0));
