import { describe, expect, it, vi } from 'vitest';
import { MasterHealth, type SlotMap } from './master-health.js';

/**
 * The rule that counts a master away, by events: its PING unanswered past
 * `suspectMs` AND another master answering one sent after it. A real frozen
 * master is in `frozen-master.test.ts`; here the PINGs are held by hand, to
 * show what a gateway too busy to read any answer must not do.
 */
describe('MasterHealth', () => {
  /** Masters whose PINGs wait until the test answers them. */
  function masters(...addresses: string[]) {
    const held = new Map<string, Array<() => void>>(addresses.map((address) => [address, []]));
    const nodes = addresses.map((address) => ({
      address,
      client: { isReady: true, ping: vi.fn(() => new Promise<void>((resolve) => held.get(address)!.push(resolve))) },
    }));
    const cluster: SlotMap = { isReady: true, slots: [], masters: nodes };
    const answer = (address: string) =>
      held
        .get(address)!
        .splice(0)
        .forEach((resolve) => resolve());
    const pings = (address: string) => nodes.find((node) => node.address === address)!.client.ping.mock.calls.length;
    return { cluster, answer, pings };
  }

  it('counts a master away once another answers a PING sent after its own went unanswered; back when it answers', async () => {
    const { cluster, answer, pings } = masters('a:1', 'b:2');
    const health = new MasterHealth(cluster, 20);
    const away = new Promise<string>((resolve) => health.onAway(resolve));
    health.suspect(['a:1']);
    // Past suspectMs, b is asked too; until it answers, nothing is counted away.
    await vi.waitFor(() => expect(pings('b:2')).toBe(1));
    expect(health.isAway('a:1')).toBe(false);
    answer('b:2');
    expect(await away).toBe('a:1');
    expect(health.refusal(['a:1'])).not.toBeNull();
    expect(health.refusal(['b:2'])).toBeNull();
    // One PING at a time waits on a: its answer brings it back.
    expect(pings('a:1')).toBe(1);
    answer('a:1');
    await vi.waitFor(() => expect(health.isAway('a:1')).toBe(false));
    health.close();
  });

  it('counts none away while no master answers (a gateway too busy to read any answer), nor one that answers before the others', async () => {
    const { cluster, answer, pings } = masters('a:1', 'b:2', 'c:3');
    const health = new MasterHealth(cluster, 20);
    const counted: string[] = [];
    health.onAway((address) => counted.push(address));
    health.suspect(undefined);
    // Each is compared with the others: every master has had its own PING and two comparison PINGs.
    await vi.waitFor(() => expect(['a:1', 'b:2', 'c:3'].map(pings)).toEqual([3, 3, 3]));
    expect(counted).toEqual([]);
    // The first answers come from the PINGs sent first: every master answers its own before any comparison.
    for (const address of ['a:1', 'b:2', 'c:3']) answer(address);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(counted).toEqual([]);
    health.close();
  });
});
