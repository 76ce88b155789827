import { describe, expect, it } from 'vitest';
import { eventId, parseEventId, StreamIds } from './stream-id.js';

const ids = new StreamIds(Buffer.alloc(32, 7));

describe('stream event ids', () => {
  it('round-trips the stream and the request id, string or number', () => {
    for (const requestId of [7, 'req-1', 0]) {
      const streamId = ids.issue(requestId, 'session-a');
      expect(parseEventId(eventId(streamId, 0))).toEqual({ streamId, requestId, seen: 0 });
      expect(parseEventId(eventId(streamId, 1))).toMatchObject({ seen: 1 });
    }
    expect(ids.issue(1, 'session-a')).not.toBe(ids.issue(1, 'session-a'));
  });

  it('refuses anything not shaped as one it hands out', () => {
    const good = ids.issue(3, 'session-a');
    for (const value of [
      '',
      'x',
      `${good}:2`,
      `${good}`,
      `short.${good.split('.')[1]}:0`,
      `${good.split('.')[0]}.${Buffer.from('{"a":1}').toString('base64url')}:0`,
      `${good.split('.')[0]}.!!:0`,
    ]) {
      expect(parseEventId(value), value).toBeNull();
    }
  });

  it("tells its own streams of a session from made-up ones, another session's, and another key's (issue 25, finding 2)", () => {
    const streamId = ids.issue(3, 'session-a');
    expect(ids.belongsTo(streamId, 'session-a')).toBe(true);
    expect(new StreamIds(Buffer.alloc(32, 7)).belongsTo(streamId, 'session-a')).toBe(true);
    expect(ids.belongsTo(streamId, 'session-b')).toBe(false);
    expect(new StreamIds(Buffer.alloc(32, 8)).belongsTo(streamId, 'session-a')).toBe(false);
    const [random, request] = streamId.split('.') as [string, string];
    for (let at = 0; at < random.length; at++) {
      const changed = `${random.slice(0, at)}${random[at] === 'A' ? 'B' : 'A'}${random.slice(at + 1)}.${request}`;
      expect(ids.belongsTo(changed, 'session-a'), changed).toBe(false);
    }
    expect(ids.belongsTo(`${random}.${Buffer.from('4').toString('base64url')}`, 'session-a')).toBe(false);
    expect(ids.belongsTo('not an id', 'session-a')).toBe(false);
  });
});
