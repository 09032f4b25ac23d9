import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { killGroup, tieToThisProcess } from "../../lib/local/tied-process";

/**
 * Processes a test starts: each leads a process group of its own (so whatever it starts,
 * DynamoDB Local's JVM included, goes with it) and is tied to the test process, so a
 * test worker killed outright leaves nothing behind either. A file that starts any calls
 * `stopStartedProcesses` in an `afterEach` or `afterAll`, which vitest runs after a
 * failure and a timeout too.
 */

const started = new Set<ChildProcess>();

export function startProcess(command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  const child = spawn(command, args, { ...options, detached: true });
  tieToThisProcess(child);
  // Kept after the leader exits: what it started may still run in its group.
  started.add(child);
  return child;
}

/** Kills the whole group of every process this file started and still runs. */
export function stopStartedProcesses(): void {
  for (const child of started) killGroup(child);
  started.clear();
}
