import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '@tollgate/gateway-core/errors';
import { afterAll, describe, expect, it } from 'vitest';
import { privacyConfigFromSection, readPrivacyRulesFile } from './privacy-section.js';

const dir = mkdtempSync(join(tmpdir(), 'tollgate-privacy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function rulesFile(content: unknown): string {
  const path = join(dir, `rules-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

function problemOf(load: () => unknown): ConfigError {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('privacyConfigFromSection', () => {
  it('reads every setting from flat keys, case-insensitively', () => {
    const config = privacyConfigFromSection({
      Enabled: 'true',
      'Fields:0': 'internalNote',
      'fields:1': 'tax_id',
      'DisabledDetectors:0': 'ipv4',
      'Rules:0:Name': 'employee-id',
      'Rules:0:Pattern': 'EMP-\\d{6}',
      'rules:0:replacement': 'EMP-******',
      'Rules:1:Name': 'ticket',
      'Rules:1:Pattern': 'TCK-[0-9]+',
      'Rules:1:Flags': 'm',
      'Tools:list_products:Enabled': 'FALSE',
      'Tools:crm.get_customer:Fields:0': 'notes',
      'Tools:crm.get_customer:DisabledDetectors:0': 'phone',
    });
    expect(config).toEqual({
      enabled: true,
      fields: ['internalNote', 'tax_id'],
      disabledDetectors: ['ipv4'],
      rules: [
        { name: 'employee-id', pattern: 'EMP-\\d{6}', replacement: 'EMP-******' },
        { name: 'ticket', pattern: 'TCK-[0-9]+', flags: 'm' },
      ],
      tools: {
        list_products: { enabled: false },
        'crm.get_customer': { fields: ['notes'], disabledDetectors: ['phone'] },
      },
    });
  });

  it('is empty without keys', () => {
    expect(privacyConfigFromSection({})).toEqual({});
  });

  it.each<[string, Record<string, string>, string]>([
    ['an unknown setting', { 'Feilds:0': 'x' }, 'Gw:Privacy:Feilds:0: is not a privacy setting'],
    ['an unknown rule setting', { 'Rules:0:Regex': 'x' }, 'Gw:Privacy:Rules:0:Regex: is not a rule setting'],
    [
      'an unknown tool setting',
      { 'Tools:t:Rules:0': 'x' },
      'Gw:Privacy:Tools:t:Rules:0: is not a tool privacy setting',
    ],
    ['a non-numeric index', { 'Fields:first': 'x' }, 'Gw:Privacy:Fields:first: list index must be a whole number'],
    ['a gap in a list', { 'Fields:0': 'a', 'Fields:2': 'b' }, 'Gw:Privacy:Fields:1: is missing'],
    ['a flag that is not a boolean', { Enabled: 'yes' }, 'Gw:Privacy:Enabled: must be true or false'],
    [
      'a tool flag that is not a boolean',
      { 'Tools:t:Enabled': '0' },
      'Gw:Privacy:Tools:t:Enabled: must be true or false',
    ],
    [
      'an unknown detector',
      { 'DisabledDetectors:0': 'emails' },
      'Gw:Privacy:DisabledDetectors:0: is not a detector (known: email, phone',
    ],
    [
      'an unknown tool detector',
      { 'Tools:t:DisabledDetectors:0': 'x' },
      'Gw:Privacy:Tools:t:DisabledDetectors:0: is not a detector',
    ],
    ['an empty field name', { 'Fields:0': ' - ' }, 'Gw:Privacy:Fields:0: must hold a letter or a digit'],
    [
      'a bad regex',
      { 'Rules:0:Name': 'r', 'Rules:0:Pattern': '([a-z]' },
      'Gw:Privacy:Rules:0:Pattern: is not a valid regular expression',
    ],
    ['a rule without a pattern', { 'Rules:0:Name': 'r' }, 'Gw:Privacy:Rules:0:Pattern: is required'],
    [
      'a rule with an empty name',
      { 'Rules:0:Name': '', 'Rules:0:Pattern': 'x' },
      'Gw:Privacy:Rules:0:Name: must be 1–64 letters',
    ],
    [
      'a backtracking rule',
      { 'Rules:0:Name': 'r', 'Rules:0:Pattern': '(a)\\1' },
      'Gw:Privacy:Rules:0:Pattern: cannot run in linear time',
    ],
    ['an invalid tool name', { 'Tools:bad tool:Enabled': 'false' }, 'Gw:Privacy:Tools:bad tool'],
    ['an empty rules file path', { RulesFile: ' ' }, 'Gw:Privacy:RulesFile: must be a file path'],
  ])('refuses %s, naming the key', (_what, section, message) => {
    const error = problemOf(() => privacyConfigFromSection(section));
    expect(error.message.startsWith(message)).toBe(true);
  });

  it('takes dotted tool names whole when naming a key', () => {
    const error = problemOf(() => privacyConfigFromSection({ 'Tools:crm.get_customer:DisabledDetectors:0': 'x' }));
    expect(error.message).toMatch(/^Gw:Privacy:Tools:crm\.get_customer:DisabledDetectors:0: is not a detector/);
  });

  it('reads the rules file first and adds the keys to it', () => {
    const path = rulesFile({
      enabled: false,
      fields: ['fromFile'],
      rules: [{ name: 'file-rule', pattern: 'F-\\d+' }],
      tools: { get_order: { fields: ['a'] } },
    });
    const config = privacyConfigFromSection({
      RulesFile: path,
      Enabled: 'true',
      'Fields:0': 'fromKeys',
      'Tools:get_order:Fields:0': 'b',
      'Tools:get_order:Enabled': 'false',
    });
    expect(config).toEqual({
      enabled: true,
      fields: ['fromFile', 'fromKeys'],
      disabledDetectors: [],
      rules: [{ name: 'file-rule', pattern: 'F-\\d+' }],
      tools: { get_order: { enabled: false, fields: ['a', 'b'], disabledDetectors: [] } },
    });
  });
});

describe('readPrivacyRulesFile', () => {
  it.each<[string, unknown, RegExp]>([
    ['bad JSON', '{ "fields": [', /is not valid JSON/],
    ['a top-level array', [], /\(top level\): must be a JSON object/],
    ['a bad regex', { rules: [{ name: 'r', pattern: '(' }] }, /rules\[0\]\.pattern: is not a valid regular expression/],
    [
      'an unknown detector',
      { tools: { get_order: { disabledDetectors: ['cards'] } } },
      /tools\.get_order\.disabledDetectors\[0\]: is not a detector/,
    ],
    [
      'an unknown property',
      { rules: [{ name: 'r', pattern: 'x', flag: 'm' }] },
      /rules\[0\]\.flag: is not a privacy setting/,
    ],
    ['an unknown top-level property', { field: ['x'] }, /: field: is not a privacy setting/],
    ['a wrong type', { enabled: 'false' }, /enabled: must be true or false/],
    ['a field name that is not a string', { fields: [42] }, /fields\[0\]: must be a string/],
  ])('refuses %s, naming the file and the place in it', (_what, content, message) => {
    const path = rulesFile(content);
    const error = problemOf(() => readPrivacyRulesFile(path));
    expect(error.problems.map((problem) => problem.path)).toEqual(['Gw:Privacy:RulesFile']);
    expect(error.message).toContain(path);
    expect(error.message).toMatch(message);
  });

  it('refuses a file that cannot be read', () => {
    const error = problemOf(() => privacyConfigFromSection({ RulesFile: join(dir, 'missing.json') }));
    expect(error.message).toMatch(/^Gw:Privacy:RulesFile: cannot read .*missing\.json \(ENOENT\)$/);
  });
});
