import { Worker } from "node:worker_threads";

/**
 * Worker threads that verify bcrypt and argon2id hashes: both libraries compute on the
 * thread that calls them (bcryptjs in JavaScript, hash-wasm in WebAssembly), which on the
 * main thread would hold every other request until the hash is done. At most `size` run
 * at once; the rest wait their turn. Workers start on first use and never keep a process
 * alive while idle.
 */

export interface WorkerJob {
  alg: "bcrypt" | "argon2id";
  password: string;
  hash: string;
}

interface Pending extends WorkerJob {
  id: number;
  done: (matches: boolean) => void;
  fail: (error: Error) => void;
}

// Beside this module in the sources, beside index.mjs in a Lambda bundle (infra/bundling.ts).
const WORKER_FILE = new URL("./foreign-hash-worker.mjs", import.meta.url);

export interface ForeignHashPool {
  verify(job: WorkerJob): Promise<boolean>;
}

export function foreignHashPool(size: number): ForeignHashPool {
  const idle: Worker[] = [];
  const busy = new Map<Worker, Pending>();
  const queue: Pending[] = [];
  let nextId = 0;

  function spawn(): Worker {
    const worker = new Worker(WORKER_FILE);
    worker.on("message", ({ id, matches }: { id: number; matches: boolean }) => {
      const job = busy.get(worker);
      if (!job || job.id !== id) return;
      busy.delete(worker);
      worker.unref();
      idle.push(worker);
      job.done(matches);
      pump();
    });
    // A worker that dies takes its job with it; the next job starts a fresh one.
    const lost = (error: Error) => {
      const job = busy.get(worker);
      busy.delete(worker);
      const at = idle.indexOf(worker);
      if (at >= 0) idle.splice(at, 1);
      job?.fail(error);
      pump();
    };
    worker.on("error", lost);
    worker.on("exit", (code) => lost(new Error(`foreign-hash worker exited (${code})`)));
    return worker;
  }

  function pump(): void {
    while (queue.length > 0 && (idle.length > 0 || busy.size < size)) {
      const worker = idle.pop() ?? spawn();
      const job = queue.shift() as Pending;
      busy.set(worker, job);
      worker.ref();
      worker.postMessage({ id: job.id, alg: job.alg, password: job.password, hash: job.hash });
    }
  }

  return {
    verify(job: WorkerJob): Promise<boolean> {
      return new Promise((done, fail) => {
        queue.push({ ...job, id: nextId++, done, fail });
        pump();
      });
    },
  };
}
