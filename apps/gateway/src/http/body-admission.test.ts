import { TransportError } from '@tollgate/gateway-core/errors';
import { describe, expect, it } from 'vitest';
import { BodyAdmission } from './body-admission.js';

const MiB = 1024 * 1024;

function refusal(run: () => unknown): TransportError | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof TransportError) return error;
    throw error;
  }
  return undefined;
}

describe('BodyAdmission', () => {
  it('holds an agent to an eighth of the total, leaving room for the others', () => {
    const bodies = new BodyAdmission(64 * MiB);
    for (let i = 0; i < 8; i += 1) bodies.admit('flooder', MiB);
    expect(refusal(() => bodies.admit('flooder', MiB))).toMatchObject({
      code: 'too-many-uploads',
      message: expect.stringMatching(/This agent/),
    });
    expect(refusal(() => bodies.admit('other', MiB))).toBeUndefined();
    expect(bodies.pendingBytes).toBe(9 * MiB);
  });

  it('admits a lone body larger than the share: the size limit, not this bound, caps one body', () => {
    const bodies = new BodyAdmission(8 * MiB);
    expect(refusal(() => bodies.admit('a', 2 * MiB))).toBeUndefined();
    expect(refusal(() => bodies.admit('a', 1))).toMatchObject({ code: 'too-many-uploads' });
  });

  it('refuses any agent once the instance holds its total', () => {
    const bodies = new BodyAdmission(4 * MiB);
    for (const agent of ['a', 'b', 'c', 'd']) bodies.admit(agent, MiB);
    expect(refusal(() => bodies.admit('e', 1))).toMatchObject({
      code: 'too-many-uploads',
      message: expect.stringMatching(/The gateway/),
    });
  });

  it('gives the bytes back once per release, however often it is called', () => {
    const bodies = new BodyAdmission(64 * MiB);
    const releases = Array.from({ length: 8 }, () => bodies.admit('a', MiB));
    releases[0]!();
    releases[0]!();
    expect(bodies.pendingBytes).toBe(7 * MiB);
    expect(refusal(() => bodies.admit('a', MiB))).toBeUndefined();
    expect(refusal(() => bodies.admit('a', MiB))).toMatchObject({ code: 'too-many-uploads' });
    for (const release of releases) release();
    expect(bodies.pendingBytes).toBe(MiB);
  });
});
