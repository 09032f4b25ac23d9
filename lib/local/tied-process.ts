import { type ChildProcess, spawn } from "node:child_process";
import type { Socket } from "node:net";

/**
 * A watchdog that kills a child's process group once this process is gone, however it
 * ends (SIGKILL and a test runner's timeout included, where no exit handler runs): it
 * holds a pipe from us, and the kernel closes that pipe when we die. It also leaves once
 * the child has gone.
 */
const WATCHDOG = `
const pid = Number(process.argv[1]);
const kill = (target) => { try { process.kill(target, "SIGKILL"); } catch {} };
const end = () => { kill(-pid); kill(pid); process.exit(0); };
process.stdin.on("end", end).on("error", end).resume();
setInterval(() => { try { process.kill(pid, 0); } catch { process.exit(0); } }, 1000);
`;

/** Ties `child` (and its group, when it leads one) to this process's life. */
export function tieToThisProcess(child: ChildProcess): void {
  if (child.pid === undefined) return;
  const watchdog = spawn(process.execPath, ["-e", WATCHDOG, String(child.pid)], {
    stdio: ["pipe", "ignore", "ignore"],
    detached: true,
  });
  // Neither the watchdog nor its pipe may keep this process alive.
  watchdog.unref();
  (watchdog.stdin as unknown as Socket).unref();
  child.once("exit", () => watchdog.kill("SIGKILL"));
}

/** Kills a process group started with `detached: true`, or the process alone when it leads none. */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals = "SIGKILL"): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // No such group: a child started without one, still running, is killed alone.
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  }
}
