import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { parsePrivacyConfig } from './config.js';

describe('parsePrivacyConfig', () => {
  it('keeps a valid configuration', () => {
    const config = {
      enabled: true,
      fields: ['internalNote'],
      disabledDetectors: ['ipv4'],
      rules: [{ name: 'ticket', pattern: 'TCK-[0-9]+', flags: 'm' }],
      tools: { 'crm.get_customer': { enabled: false, fields: ['notes'], disabledDetectors: ['phone'] } },
    };
    expect(parsePrivacyConfig(config)).toEqual(config);
  });

  it('names the path of a problem in a configuration given in code', () => {
    const parse = () => parsePrivacyConfig({ rules: [{ name: 'r', pattern: 'a*' }] });
    expect(parse).toThrow(ConfigError);
    expect(parse).toThrow(new ConfigError([{ path: 'privacy.rules.0.pattern', message: 'matches the empty string' }]));
  });

  it.each<[string, unknown, string, RegExp]>([
    ['a value that is not an object', [], 'privacy', /^must be a JSON object$/],
    [
      'a bad regex',
      { rules: [{ name: 'r', pattern: '(' }] },
      'privacy.rules.0.pattern',
      /^is not a valid regular expression/,
    ],
    [
      'an unknown detector',
      { tools: { get_order: { disabledDetectors: ['cards'] } } },
      'privacy.tools.get_order.disabledDetectors.0',
      /^is not a detector/,
    ],
    [
      'an unknown property',
      { rules: [{ name: 'r', pattern: 'x', flag: 'm' }] },
      'privacy.rules.0.flag',
      /^is not a privacy setting$/,
    ],
    ['an unknown top-level property', { field: ['x'] }, 'privacy.field', /^is not a privacy setting$/],
    ['a wrong type', { enabled: 'false' }, 'privacy.enabled', /^must be true or false$/],
    ['a field name that is not a string', { fields: [42] }, 'privacy.fields.0', /^must be a string$/],
    ['an invalid tool name', { tools: { 'bad tool': {} } }, 'privacy.tools.bad tool', /./],
  ])('refuses %s, naming the option path', (_what, input, path, message) => {
    expect(() => parsePrivacyConfig(input)).toThrow(
      expect.objectContaining({ problems: [{ path, message: expect.stringMatching(message) }] }),
    );
  });
});
