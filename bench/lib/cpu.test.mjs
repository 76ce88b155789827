import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { CLOCK_TICKS, idleCpu, runNanoseconds, threadsPerCall } from './cpu.mjs';

/**
 * Keeps the main thread busy until it has used `ms` of CPU in user space (not wall time: the machine may be
 * loaded). The clock is read every 100,000 steps: reading it is a system call, which would make the loop's own.
 */
function spin(ms) {
  const start = process.cpuUsage();
  let x = 0;
  while (process.cpuUsage(start).user < ms * 1000) for (let i = 0; i < 100_000; i++) x += Math.sqrt(x + i);
  return x;
}

describe('threadsPerCall', () => {
  // Timeouts for a loaded machine: 300 ms of CPU may take seconds of wall time.
  it("puts a busy main thread's CPU under the main thread, and adds up to the process's CPU", {
    timeout: 60_000,
  }, async () => {
    const hook = threadsPerCall(() => [process.pid]);
    const before = process.cpuUsage();
    await hook.before();
    spin(300);
    const split = await hook.after(1);
    const used = process.cpuUsage(before);
    const tickUs = 1e6 / CLOCK_TICKS;
    // The spin counts the user time of every thread (V8's helpers too); most of it is the main thread's.
    expect(split.mainUser + split.other).toBeGreaterThanOrEqual(300_000 - 2 * tickUs);
    expect(split.mainUser).toBeGreaterThan(150_000);
    expect(split.other).toBeGreaterThanOrEqual(0);
    // /proc counts in clock ticks, per thread: each thread's figure may be off by a tick either way.
    const total = split.mainUser + split.mainSystem + split.other;
    expect(Math.abs(total - (used.user + used.system))).toBeLessThanOrEqual(10 * tickUs);
  });

  it('divides by the calls and reads nothing for a process that is gone', { timeout: 60_000 }, async () => {
    const hook = threadsPerCall(() => [process.pid]);
    await hook.before();
    spin(100);
    const split = await hook.after(1000);
    // 100 ms of user time and a little system time, over 1000 calls.
    expect(split.mainUser + split.other).toBeGreaterThanOrEqual(100 - 20);
    expect(split.mainUser + split.mainSystem).toBeLessThanOrEqual(200);
    const gone = threadsPerCall(() => [2 ** 22 + 1]);
    await gone.before();
    expect(await gone.after(1)).toEqual({ mainUser: 0, mainSystem: 0, other: 0 });
  });
});

describe('runNanoseconds and idleCpu', () => {
  it("counts this process's run time to the nanosecond, and nothing for a process that is gone", {
    timeout: 60_000,
  }, () => {
    const before = runNanoseconds([process.pid]);
    const used = process.cpuUsage();
    spin(50);
    const ran = runNanoseconds([process.pid]) - before;
    const usedNs = process.cpuUsage(used).user * 1000;
    // The scheduler's count covers user and system time of every thread: at least the spin's user time.
    expect(ran).toBeGreaterThanOrEqual(usedNs * 0.9);
    expect(runNanoseconds([2 ** 22 + 1])).toBe(0);
  });

  it('tells a busy process from an idle one measured over the same window', { timeout: 60_000 }, async () => {
    // Each says so once it has started (start-up is busy in both), then loops or waits.
    const child = (code) => spawn(process.execPath, ['-e', `console.log('up'); ${code}`], { stdio: 'pipe' });
    const busy = child('setImmediate(() => { for (;;) Math.sqrt(Math.random()); });');
    const idle = child('setInterval(() => {}, 1000);');
    try {
      await Promise.all([once(busy.stdout, 'data'), once(idle.stdout, 'data')]);
      const msPerSecond = await idleCpu({ busy: busy.pid, idle: idle.pid }, 1);
      // The busy one runs whenever it has a core; the idle one wakes once.
      expect(msPerSecond.busy).toBeGreaterThan(10 * Math.max(msPerSecond.idle, 1));
      expect(msPerSecond.idle).toBeLessThan(50);
    } finally {
      busy.kill();
      idle.kill();
    }
  });
});
