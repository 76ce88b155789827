// CPU time of processes, from Linux's /proc: what a call costs in CPU, which
// says how many calls one core serves whatever else shares the machine.
// utime + stime of /proc/<pid>/stat cover every thread of the process (the
// embedding model's worker thread, libuv's pool), in clock ticks.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`; 100 on every Linux we know). */
export const CLOCK_TICKS = (() => {
  try {
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isInteger(ticks) && ticks > 0 ? ticks : 100;
  } catch {
    return 100;
  }
})();

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
function statFields(pid) {
  const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return text.slice(text.lastIndexOf(')') + 2).split(' ');
}

/**
 * utime + stime of one process in ticks; 0 once it is gone. Field 14 and 15 of stat(5), 12th and 13th after the name.
 * With `reaped`, also cutime + cstime (16 and 17): its children that have exited and that it waited for.
 */
function cpuTicks(pid, reaped = false) {
  try {
    const fields = statFields(pid);
    const own = Number(fields[11]) + Number(fields[12]);
    return reaped ? own + Number(fields[13]) + Number(fields[14]) : own;
  } catch {
    return 0;
  }
}

/** The pid and every live descendant of it (a cluster primary's workers, say). */
export function processTree(pid) {
  const parentOf = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      parentOf.set(Number(entry), Number(statFields(entry)[1]));
    } catch {
      // exited while we looked
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++)
    for (const [child, parent] of parentOf) if (parent === tree[i]) tree.push(child);
  return tree;
}

/** CPU seconds used so far by these processes together; with `reaped`, their exited children's too. */
export function cpuSeconds(pids, { reaped = false } = {}) {
  return pids.reduce((sum, pid) => sum + cpuTicks(pid, reaped), 0) / CLOCK_TICKS;
}

/** Busy CPU seconds of the whole machine so far (every core; idle, iowait and steal excluded), from /proc/stat. */
export function machineBusySeconds() {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  // user nice system idle iowait irq softirq steal ...: work done here (steal is the hypervisor serving other guests).
  const [user, nice, system, , , irq, softirq] = ticks.map(Number);
  return (user + nice + system + irq + softirq) / CLOCK_TICKS;
}

/**
 * A hook for the load run (see load.mjs): CPU of the processes under test,
 * per call, over the measured calls; plus, for context, the other processes
 * named in `context` and what the rest of the machine (other users of a
 * shared VM included) did meanwhile.
 */
export function cpuPerCall({ underTest, context = {}, ours }) {
  let start;
  const snapshot = () => ({
    at: process.hrtime.bigint(),
    underTest: cpuSeconds(underTest()),
    byPid: Object.fromEntries(underTest().map((pid) => [pid, cpuSeconds([pid])])),
    context: Object.fromEntries(Object.entries(context).map(([name, pids]) => [name, cpuSeconds(pids())])),
    ours: cpuSeconds(ours()),
    machine: machineBusySeconds(),
  });
  let end;
  return {
    before: async () => {
      start = snapshot();
      end = undefined;
    },
    reached: () => {
      end = snapshot();
    },
    after: async (calls) => {
      end ??= snapshot();
      const seconds = Number(end.at - start.at) / 1e9;
      const perCallUs = (cpu) => Math.round((cpu / calls) * 1e6);
      return {
        calls,
        pids: underTest(),
        usPerCall: perCallUs(end.underTest - start.underTest),
        // A cluster's primary and workers one by one (a single process: itself).
        usPerCallByPid: Object.fromEntries(
          Object.keys(end.byPid).map((pid) => [pid, perCallUs(end.byPid[pid] - (start.byPid[pid] ?? 0))]),
        ),
        cpuSeconds: round3(end.underTest - start.underTest),
        contextUsPerCall: Object.fromEntries(
          Object.keys(context).map((name) => [name, perCallUs(end.context[name] - start.context[name])]),
        ),
        // Cores busy on average: the whole machine, and the part none of the bench's processes used.
        machineBusyCores: round2((end.machine - start.machine) / seconds),
        otherBusyCores: round2(Math.max(0, end.machine - start.machine - (end.ours - start.ours)) / seconds),
      };
    },
  };
}

const round2 = (n) => Math.round(n * 100) / 100;
const round3 = (n) => Math.round(n * 1000) / 1000;

/** Read and write system calls made so far by these processes (syscr, syscw of /proc/<pid>/io). */
function syscalls(pids) {
  let reads = 0;
  let writes = 0;
  let bytesOut = 0;
  for (const pid of pids) {
    try {
      const io = readFileSync(`/proc/${pid}/io`, 'utf8');
      reads += Number(/^syscr: (\d+)/m.exec(io)?.[1] ?? 0);
      writes += Number(/^syscw: (\d+)/m.exec(io)?.[1] ?? 0);
      bytesOut += Number(/^wchar: (\d+)/m.exec(io)?.[1] ?? 0);
    } catch {
      // gone, or not ours to read
    }
  }
  return { reads, writes, bytesOut };
}

/**
 * A hook for the load run: read and write system calls per call of the
 * processes under test. On a VM each one costs microseconds, so how many a
 * call makes (socket reads and writes, to the client, the downstream and the
 * store) explains much of a proxy's CPU.
 */
export function syscallsPerCall(underTest) {
  return windowHook(
    () => syscalls(underTest()),
    (start, end, calls) => {
      const perCall = (n) => Math.round((n / calls) * 100) / 100;
      return {
        reads: perCall(end.reads - start.reads),
        writes: perCall(end.writes - start.writes),
        bytesOut: Math.round((end.bytesOut - start.bytesOut) / calls),
      };
    },
  );
}

/**
 * A load-run hook around counters: `read` before the run and when it is reached (or after it), `summarize`
 * turns the two readings and the number of calls into the row's figures.
 */
function windowHook(read, summarize) {
  let start;
  let end;
  return {
    before: async () => {
      start = read();
      end = undefined;
    },
    reached: () => {
      end = read();
    },
    after: async (calls) => {
      end ??= read();
      return summarize(start, end, calls);
    },
  };
}

/**
 * Calls `visit(pid, tid)` for every live thread of these processes; a process or thread that ends while
 * we look (`visit` throws reading it) is skipped.
 */
function eachThread(pids, visit) {
  for (const pid of pids) {
    let tids;
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue; // gone
    }
    for (const tid of tids) {
      try {
        visit(pid, Number(tid));
      } catch {
        // a thread that ended while we looked
      }
    }
  }
}

/** utime and stime (ticks) of a process's main thread, and of its other threads together (V8's, libuv's, workers). */
function threadTicks(pids) {
  const ticks = { mainUser: 0, mainSystem: 0, otherThreads: 0 };
  eachThread(pids, (pid, tid) => {
    const fields = statFields(`${pid}/task/${tid}`);
    const [user, system] = [Number(fields[11]), Number(fields[12])];
    if (tid === pid) {
      ticks.mainUser += user;
      ticks.mainSystem += system;
    } else ticks.otherThreads += user + system;
  });
  return ticks;
}

/**
 * A hook for the load run: where the CPU of a call went, per call: the main
 * thread in user space and in the kernel (system calls: socket reads and
 * writes), and every other thread (V8's garbage collector and compiler
 * helpers, libuv's pool, worker threads). A V8 CPU profile weighs each sample
 * by the time until the next one, so a write during which the process lost
 * its core reads as CPU there; this split says what the kernel really took.
 * Threads that ended during the run are not counted.
 */
export function threadsPerCall(underTest) {
  return windowHook(
    () => threadTicks(underTest()),
    (start, end, calls) => {
      const perCallUs = (key) => Math.round(((end[key] - start[key]) / CLOCK_TICKS / calls) * 1e6);
      return { mainUser: perCallUs('mainUser'), mainSystem: perCallUs('mainSystem'), other: perCallUs('otherThreads') };
    },
  );
}

/**
 * Nanoseconds every thread of these processes has run so far (the first field of each
 * /proc/<pid>/task/<tid>/schedstat: the scheduler's own count, exact where clock ticks are 10 ms).
 * Threads and processes that are gone count 0.
 */
export function runNanoseconds(pids) {
  let total = 0;
  eachThread(pids, (pid, tid) => {
    total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
  });
  return total;
}

/**
 * What each process (with its descendants: a cluster's workers) costs while it serves nothing: CPU
 * milliseconds per second of wall time over `seconds`, all of them measured over the same window.
 * An idle server's timers, its store client's pings and its metrics' samplers cost every instance
 * of a deployment this much, call or no call.
 */
export async function idleCpu(pidsByName, seconds) {
  const trees = Object.fromEntries(Object.entries(pidsByName).map(([name, pid]) => [name, processTree(pid)]));
  const read = () => Object.fromEntries(Object.entries(trees).map(([name, pids]) => [name, runNanoseconds(pids)]));
  const startAt = process.hrtime.bigint();
  const start = read();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const end = read();
  const wallSeconds = Number(process.hrtime.bigint() - startAt) / 1e9;
  return Object.fromEntries(
    Object.keys(trees).map((name) => [name, round2((end[name] - start[name]) / 1e6 / wallSeconds)]),
  );
}
