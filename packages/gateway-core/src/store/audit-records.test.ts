import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../errors.js';
import { checkAuditQuery, compareAuditIds, isAuditCursor } from './audit-records.js';

describe('audit cursors', () => {
  it('accepts record ids and refuses 0-0 in any spelling (Redis: "invalid end ID")', () => {
    expect(isAuditCursor('1718000000000-0')).toBe(true);
    expect(isAuditCursor('0-1')).toBe(true);
    expect(isAuditCursor('9999999999999999-9999999999999999')).toBe(true);
    for (const bad of [
      '0-0',
      '00-000',
      '0000000000000000-0000000000000000',
      '18446744073709551616-0',
      '1-',
      '-1',
      '1-2-3',
    ]) {
      expect(isAuditCursor(bad)).toBe(false);
    }
  });

  it('names the field when the cursor is 0-0', () => {
    expect(() => checkAuditQuery({ limit: 10, before: '0-0' })).toThrow(InvalidInputError);
    try {
      checkAuditQuery({ limit: 10, before: '0-0' });
    } catch (error) {
      expect((error as InvalidInputError).fields).toEqual([
        { path: 'before', message: 'must be a cursor returned by a previous page' },
      ]);
    }
  });

  it('compares ids exactly past 2^53 and across lengths and leading zeros', () => {
    expect(compareAuditIds('9007199254740993-0', '9007199254740992-0')).toBeGreaterThan(0);
    expect(compareAuditIds('1-9007199254740993', '1-9007199254740992')).toBeGreaterThan(0);
    expect(compareAuditIds('10-0', '9-5')).toBeGreaterThan(0);
    expect(compareAuditIds('1-10', '1-9')).toBeGreaterThan(0);
    expect(compareAuditIds('007-1', '7-01')).toBe(0);
    expect(compareAuditIds('5-0', '5-1')).toBeLessThan(0);
  });
});
