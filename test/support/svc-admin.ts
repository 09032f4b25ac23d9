import { execFile } from "node:child_process";

/**
 * The real CLI as an operator runs it (`node bin/svc-admin.mjs`), on the test file's table:
 * the setup file put DYNAMODB_PORT and TABLE_NAME in our environment, and the child
 * inherits them, so it attaches to the suite's DynamoDB Local instead of starting one.
 */

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function svcAdmin(...args: string[]): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ["bin/svc-admin.mjs", ...args],
      {
        env: { ...process.env, DYNAMODB_PORT: process.env.DYNAMODB_PORT, TABLE_NAME: process.env.TABLE_NAME },
        maxBuffer: 256 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        done({ code, stdout, stderr });
      },
    );
  });
}
